import { tenantOf } from '../access/lineage.ts';
import type { CallPlan, CallTrace } from '../completion/call-plan.ts';
import { CompletionStream } from '../completion/completion-stream.ts';
import { factsOf, recordCall, responseInfo } from '../completion/finalise.ts';
import type { Services } from '../completion/services.ts';
import { utf8Length } from '../internal/bytes.ts';
import { StreamRecorder, type StreamSummary } from '../records/stream-recorder.ts';
import type { CompletionChunk, CompletionRequest, CompletionResponse, SwitchyardResponseInfo } from '../types.ts';
import { cacheKey, isDeterministic } from './cache-key.ts';
import type { ResponseCacheStore } from './cache-store.ts';
import { answerOfResponse, answerOfStream, type CachedAnswer, chunksOf, parseAnswer } from './cached-answer.ts';

/**
 * The response cache stage, between planning and the budgets: a call the cache may answer is looked up by the
 * request that would reach the model and the caller's tenant. A hit is answered from the entry (streamed as chunks
 * when asked) and recorded at no cost, holding and charging no budget; a miss goes on, and its answer is stored
 * once it is complete (`rememberResponse`, `rememberStream`).
 */

/** A call the cache may answer: its key, and the entry found under it. */
export interface CacheLookup {
  key: string;
  answer: CachedAnswer | undefined;
}

/**
 * The call's entry, or `undefined` when the cache is not for this call: its `cache` (else the gateway's mode) is
 * `never`, or `auto` for a request that is not deterministic (then synchronously: no await on the common path). A
 * store that cannot be read is a miss, warned about.
 */
export function lookUpCache(
  services: Services,
  plan: CallPlan,
  trace: CallTrace,
): Promise<CacheLookup | undefined> | undefined {
  const cache = services.cache;
  const mode = plan.request.cache ?? cache?.mode ?? 'never';
  if (mode === 'never') return undefined;
  if (!cache) {
    trace.warn({ code: 'cache_off', param: 'cache', message: 'This gateway has no response cache (cache: false).' });
    return undefined;
  }
  if (mode === 'auto' && !isDeterministic(plan)) return undefined;
  return read(cache.store, cacheKey(plan, tenantOf(plan.access) ?? cache.tenant), trace);
}

async function read(store: ResponseCacheStore, key: string, trace: CallTrace): Promise<CacheLookup | undefined> {
  try {
    return { key, answer: parseAnswer(await store.get(key)) };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    trace.warn({ code: 'cache_unavailable', message: `The response cache could not be read (${reason}).` });
    return undefined;
  }
}

/** A hit, answered as the caller asked (a response, or a stream of its chunks) and recorded with cost 0. */
export function answerFromCache(
  services: Services,
  request: CompletionRequest,
  plan: CallPlan,
  trace: CallTrace,
  answer: CachedAnswer,
): CompletionResponse | CompletionStream {
  trace.adopt(answer.warnings);
  const written = { model: plan.model, offering: { provider: answer.provider, model: answer.provider_model } };
  const info = responseInfo(plan, trace, { candidate: written, provider: answer.provider }, plan.modelKnown);
  info.cache = 'hit';
  if (!plan.stream) {
    const response: CompletionResponse = { ...answer.completion, switchyard: info };
    recordCall(services, factsOf(request, plan), trace, { info, response });
    return response;
  }
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

/** Stores a non-streamed answer under the call's key (off the request path: a failed write costs the entry only). */
export function rememberResponse(services: Services, lookup: CacheLookup, response: CompletionResponse): void {
  response.switchyard.cache = 'miss';
  store(services, lookup.key, answerOfResponse(response));
}

/** What stores a streamed miss's answer, once its stream has ended without an error. */
export function rememberStream(
  services: Services,
  lookup: CacheLookup,
): (summary: StreamSummary, info: SwitchyardResponseInfo) => void {
  return (summary, info) => store(services, lookup.key, answerOfStream(summary, info));
}

function store(services: Services, key: string, answer: CachedAnswer | undefined): void {
  const cache = services.cache;
  if (!cache || !answer) return;
  const text = JSON.stringify(answer);
  if (utf8Length(text) > cache.maxEntryBytes) return;
  cache.store.set(key, text, cache.ttlMs).catch(() => {});
}
