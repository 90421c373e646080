import type { StreamSummary } from '../records/stream-recorder.ts';
import type {
  CompletionChoice,
  CompletionChunk,
  CompletionChunkDelta,
  CompletionResponse,
  CompletionWarning,
  SwitchyardResponseInfo,
} from '../types.ts';

/** A cached answer: the completion as its caller got it (without `switchyard`), and who wrote it. */
export interface CachedAnswer {
  /** The entry's format: an entry of another format (another version's, in a shared Redis) is a miss. */
  v: 1;
  provider: string;
  provider_model: string;
  completion: Omit<CompletionResponse, 'switchyard'>;
  /** What the answering attempt could not take as asked: still true of the answer when it is served again. */
  warnings: CompletionWarning[];
}

/** The entry of a non-streamed answer; `undefined` for one with custom tool calls, which a stream cannot replay. */
export function answerOfResponse(response: CompletionResponse): CachedAnswer | undefined {
  const { switchyard, ...completion } = response;
  const calls = completion.choices.flatMap((choice) => choice.message.tool_calls ?? []);
  if (calls.some((call) => call.type !== 'function')) return undefined;
  return { v: 1, ...writtenBy(switchyard), completion, warnings: switchyard.warnings };
}

/**
 * The entry of a stream that finished: its answer as the stream recorder assembled it (the first choice), with the
 * provider's usage. `undefined` when it did not finish (no finish reason, or no usage: cut, or left early).
 */
export function answerOfStream(summary: StreamSummary, info: SwitchyardResponseInfo): CachedAnswer | undefined {
  const { output, usage } = summary;
  if (!output?.finish_reason || !usage) return undefined;
  // As for a whole answer: custom calls are not replayed.
  if (output.tool_calls.some((call) => call.type !== 'function')) return undefined;
  const message: CompletionChoice['message'] = { role: 'assistant', content: output.content, refusal: output.refusal };
  if (output.reasoning_content !== null) message.reasoning_content = output.reasoning_content;
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
  return { v: 1, ...writtenBy(info), completion, warnings: info.warnings };
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

/**
 * The answer replayed as a stream: per choice, one chunk with its whole message, then one with the finish reasons,
 * then the usage chunk when the caller asked for it (`stream_options.include_usage`).
 */
export function chunksOf(completion: CachedAnswer['completion'], includeUsage: boolean): CompletionChunk[] {
  const base = { id: completion.id, object: 'chat.completion.chunk' as const, created: completion.created };
  const chunk = (choices: CompletionChunk['choices']): CompletionChunk => ({
    ...base,
    model: completion.model,
    choices,
  });
  const chunks = completion.choices.map((choice) =>
    chunk([{ index: choice.index, delta: deltaOf(choice), finish_reason: null }]),
  );
  chunks.push(
    chunk(completion.choices.map(({ index, finish_reason }) => ({ index, delta: {}, finish_reason, logprobs: null }))),
  );
  if (includeUsage && completion.usage) chunks.push({ ...chunk([]), usage: completion.usage });
  return chunks;
}

function deltaOf({ message }: CompletionChoice): CompletionChunkDelta {
  const delta: CompletionChunkDelta = { role: 'assistant', content: message.content ?? '' };
  if (message.reasoning_content) delta.reasoning_content = message.reasoning_content;
  if (message.reasoning_details) delta.reasoning_details = message.reasoning_details;
  if (message.refusal) delta.refusal = message.refusal;
  if (message.tool_calls?.length) {
    delta.tool_calls = message.tool_calls.flatMap((call, index) =>
      call.type === 'function' ? [{ index, id: call.id, type: 'function' as const, function: call.function }] : [],
    );
  }
  return delta;
}

function writtenBy(info: SwitchyardResponseInfo): Pick<CachedAnswer, 'provider' | 'provider_model'> {
  return { provider: info.provider, provider_model: info.provider_model };
}
