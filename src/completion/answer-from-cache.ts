import { StreamRecorder, type StreamSummary } from '../records/stream-recorder.ts';
import type {
  CompletionChoice,
  CompletionChunk,
  CompletionChunkDelta,
  CompletionRequest,
  CompletionResponse,
} from '../types.ts';
import type { CallPlan, CallTrace } from './call-plan.ts';
import { CompletionStream } from './completion-stream.ts';
import { factsOf, recordCall, responseInfo } from './finalise.ts';
import type { Services } from './services.ts';
import type { CacheHit } from './stages.ts';

// A response cache hit, answered by the pipeline like any call: the same facts, the same record, at no cost.

/**
 * A hit, answered as the caller asked: a response (recorded by the caller once its answer's guardrails have passed,
 * as a miss's is), or a stream of its chunks, recorded when it ends; at cost 0.
 */
export function answerFromCache(
  services: Services,
  request: CompletionRequest,
  plan: CallPlan,
  trace: CallTrace,
  answer: CacheHit,
): CompletionResponse | CompletionStream {
  trace.adopt(answer.warnings);
  // The model that answered: a fallback's, when one did (the read checked the caller may use it), by its id even
  // when the catalog does not list it (an uncatalogued `<provider>/<id>`).
  const answered = answer.model;
  const model =
    answered === undefined || answered === plan.model.id
      ? plan.model
      : (services.catalog.find(answered) ?? { ...plan.model, id: answered });
  const written = { model, offering: { provider: answer.provider, model: answer.provider_model } };
  const info = responseInfo(plan, trace, { candidate: written, provider: answer.provider }, plan.modelKnown);
  info.cache = 'hit';
  if (!plan.stream) return { ...answer.completion, switchyard: info };
  const record = (stream: StreamSummary) => recordCall(services, factsOf(request, plan), trace, { info, stream });
  return new CompletionStream(replay(chunksOf(answer.completion, plan.includeUsage), record), info);
}

async function* replay(
  chunks: CompletionChunk[],
  record: (stream: StreamSummary) => void,
): AsyncGenerator<CompletionChunk> {
  const observed = new StreamRecorder();
  try {
    for (const chunk of chunks) {
      observed.observe(chunk);
      yield chunk;
    }
  } finally {
    record(observed.summary());
  }
}

/**
 * The answer replayed as a stream: per choice, one chunk with its whole message, then one with the finish reasons,
 * then the usage chunk when the caller asked for it (`stream_options.include_usage`).
 */
function chunksOf(completion: CacheHit['completion'], includeUsage: boolean): CompletionChunk[] {
  const base = { id: completion.id, object: 'chat.completion.chunk' as const, created: completion.created };
  const chunk = (choices: CompletionChunk['choices']): CompletionChunk => ({
    ...base,
    model: completion.model,
    choices,
  });
  // A choice's logprobs come with its message, as a provider's come with the text they are of.
  const chunks = completion.choices.map((choice) =>
    chunk([{ index: choice.index, delta: deltaOf(choice), finish_reason: null, logprobs: choice.logprobs ?? null }]),
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
  if (message.images?.length) delta.images = message.images;
  if (message.audio) (delta as { audio?: unknown }).audio = message.audio;
  if (message.tool_calls?.length) {
    delta.tool_calls = message.tool_calls.flatMap((call, index) =>
      call.type === 'function' ? [{ index, id: call.id, type: 'function' as const, function: call.function }] : [],
    );
  }
  return delta;
}
