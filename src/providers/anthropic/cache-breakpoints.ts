import type Anthropic from '@anthropic-ai/sdk';
import type { ProviderCall } from '../provider.ts';
import type { Params } from './convert-request.ts';

/** Anthropic refuses a request with more cache breakpoints than this. */
const MAX_BREAKPOINTS = 4;

type Markable = { cache_control?: Anthropic.CacheControlEphemeral | null; type?: string };

/**
 * Places the request's cache breakpoints. The caller's stay where they were given; with `prompt_cache: 'auto'`,
 * breakpoints are added at the end of the tools, of the system prompt and of the latest message (the prefix the next
 * turn of a conversation starts with), up to Anthropic's limit of four. Beyond four, the earliest are dropped with a
 * warning: the later a breakpoint, the longer the prefix it caches.
 */
export function placeBreakpoints(call: ProviderCall, params: Params): void {
  const marked = (block: Markable | undefined) => block?.cache_control != null;
  if (call.promptCache === 'auto') {
    const lastMessage = params.messages.at(-1);
    const system = Array.isArray(params.system) ? params.system : [];
    const candidates: Array<Markable | undefined> = [
      params.tools?.at(-1) as Markable | undefined,
      system.at(-1),
      lastMessage && lastBlock(lastMessage),
    ];
    for (const block of candidates) {
      if (!block || marked(block) || countBreakpoints(params) >= MAX_BREAKPOINTS) continue;
      block.cache_control = { type: 'ephemeral' };
    }
  }
  const all = breakpoints(params);
  if (all.length <= MAX_BREAKPOINTS) return;
  for (const block of all.slice(0, all.length - MAX_BREAKPOINTS)) delete block.cache_control;
  call.warn({
    code: 'cache_breakpoints_dropped',
    message:
      `Anthropic takes at most ${MAX_BREAKPOINTS} cache breakpoints; the first ${all.length - MAX_BREAKPOINTS} of ` +
      `${all.length} were not sent.`,
  });
}

/** Every block with a breakpoint, in the order Anthropic reads the prompt: tools, system, messages. */
function breakpoints(params: Params): Markable[] {
  const system = Array.isArray(params.system) ? params.system : [];
  const blocks: Markable[] = [...((params.tools ?? []) as Markable[]), ...system];
  for (const message of params.messages) if (Array.isArray(message.content)) blocks.push(...message.content);
  return blocks.filter((block) => block.cache_control != null);
}

function countBreakpoints(params: Params): number {
  return breakpoints(params).length;
}

/**
 * The last block of a message that can hold a breakpoint; a string content becomes one text block so it can.
 * Thinking blocks cannot hold one.
 */
function lastBlock(message: Anthropic.MessageParam): Markable | undefined {
  if (typeof message.content === 'string') {
    if (message.content === '') return undefined;
    message.content = [{ type: 'text', text: message.content }];
  }
  return message.content.findLast((block) => block.type !== 'thinking' && block.type !== 'redacted_thinking');
}
