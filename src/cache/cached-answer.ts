import type { CacheHit } from '../completion/stages.ts';
import type { StreamSummary } from '../records/stream-recorder.ts';
import type { CompletionChoice, CompletionResponse, SwitchyardResponseInfo } from '../types.ts';

/** A cached answer, as the pipeline serves a hit (`CacheHit`), in an entry of this format. */
export interface CachedAnswer extends CacheHit {
  /** The entry's format: an entry of another format (another version's, in a shared Redis) is a miss. */
  v: 1;
  /** Stored from a stream: its output was checked as a stream checks it, not rewritten as a whole answer's is. */
  stream?: true;
}

/**
 * The entry of a non-streamed answer; `undefined` for one with custom tool calls, which a stream cannot replay. Its
 * warnings are those after the first `requestWarnings`: the request's own are each caller's, said again on a hit.
 */
export function answerOfResponse(response: CompletionResponse, requestWarnings: number): CachedAnswer | undefined {
  const { switchyard, ...completion } = response;
  const calls = completion.choices.flatMap((choice) => choice.message.tool_calls ?? []);
  if (calls.some((call) => call.type !== 'function')) return undefined;
  return { v: 1, ...writtenBy(switchyard), completion, warnings: switchyard.warnings.slice(requestWarnings) };
}

/**
 * The entry of a stream that finished: its answer as the stream recorder assembled it (the first choice), with the
 * provider's usage. `undefined` when it did not finish (no finish reason, or no usage: cut, or left early), for one
 * with custom tool calls, and for one with reasoning.
 */
export function answerOfStream(
  summary: StreamSummary,
  info: SwitchyardResponseInfo,
  requestWarnings: number,
): CachedAnswer | undefined {
  const { output, usage } = summary;
  if (!output?.finish_reason || !usage) return undefined;
  // Its reasoning's signed blocks are not in the summary: a hit without them would fail the caller's next turn.
  if (output.reasoning_content !== null) return undefined;
  // As for a non-streamed answer: a custom tool call cannot be replayed as a stream.
  if (output.tool_calls.some((call) => call.type !== 'function')) return undefined;
  const message: CompletionChoice['message'] = { role: 'assistant', content: output.content, refusal: output.refusal };
  if (output.tool_calls.length > 0) message.tool_calls = output.tool_calls as NonNullable<typeof message.tool_calls>;
  const finish_reason = output.finish_reason as CompletionChoice['finish_reason'];
  const completion: CachedAnswer['completion'] = {
    id: `chatcmpl-${info.call_id}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: info.model,
    choices: [{ index: 0, message, finish_reason, logprobs: null }],
    usage: usage as NonNullable<CachedAnswer['completion']['usage']>,
  };
  return { v: 1, stream: true, ...writtenBy(info), completion, warnings: info.warnings.slice(requestWarnings) };
}

/** An entry read back, or `undefined` for one that is not an answer of this format. */
export function parseAnswer(text: string | undefined): CachedAnswer | undefined {
  if (text === undefined) return undefined;
  try {
    const entry = JSON.parse(text) as Partial<CachedAnswer> | null;
    if (entry?.v !== 1 || typeof entry.provider !== 'string' || !Array.isArray(entry.completion?.choices)) return;
    return { ...entry, warnings: Array.isArray(entry.warnings) ? entry.warnings : [] } as CachedAnswer;
  } catch {
    return undefined;
  }
}

function writtenBy(info: SwitchyardResponseInfo): Pick<CachedAnswer, 'provider' | 'provider_model' | 'model'> {
  return { provider: info.provider, provider_model: info.provider_model, model: info.model };
}
