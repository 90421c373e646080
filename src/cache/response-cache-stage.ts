import { tenantOf } from '../access/lineage.ts';
import { modelAllowed } from '../access/models.ts';
import type { CacheLookup, CallPlan, CallTrace, ResponseCacheStage } from '../completion/stages.ts';
import { utf8Length } from '../internal/bytes.ts';
import { cacheKey, isDeterministic } from './cache-key.ts';
import { answerOfResponse, answerOfStream, type CachedAnswer, parseAnswer } from './cached-answer.ts';
import { type ResponseCache, type ResponseCacheOptions, responseCacheOf } from './response-cache.ts';

/**
 * The response cache stage, between planning and the budgets: a call the cache may answer is looked up by the
 * request that would reach the model and the caller's tenant. A hit is answered by the pipeline from the entry
 * (streamed as chunks when asked) and recorded at no cost, holding and charging no budget; a miss goes on, and its
 * answer is stored once it is complete (`rememberResponse`, `rememberStream`). With `cache: false` it is off, and a
 * call that asks for it is told so.
 */
export function responseCacheStage(options: false | ResponseCacheOptions | undefined): ResponseCacheStage {
  const cache = responseCacheOf(options);
  return {
    lookUp: (plan, trace) => lookUp(cache, plan, trace),
    close: async () => {
      await cache?.store.close?.();
    },
  };
}

/**
 * The call's entry, or `undefined` when the cache is not for this call: its `cache` (else the gateway's mode) is
 * `never`, or `auto` for a request that is not deterministic (then synchronously: no await on the common path). A
 * store that cannot be read is a miss, warned about.
 */
function lookUp(
  cache: ResponseCache | undefined,
  plan: CallPlan,
  trace: CallTrace,
): Promise<CacheLookup | undefined> | undefined {
  const mode = plan.request.cache ?? cache?.mode ?? 'never';
  if (mode === 'never') return undefined;
  if (!cache) {
    trace.warn({ code: 'cache_off', param: 'cache', message: 'This gateway has no response cache (cache: false).' });
    return undefined;
  }
  if (mode === 'auto' && !isDeterministic(plan)) return undefined;
  return read(cache, cacheKey(plan, tenantOf(plan.access) ?? cache.tenant), plan, trace);
}

async function read(
  cache: ResponseCache,
  key: string,
  plan: CallPlan,
  trace: CallTrace,
): Promise<CacheLookup | undefined> {
  let answer: CachedAnswer | undefined;
  // The warnings so far are the request's own (its unknown fields, what its dialect could not carry): a hit says
  // its caller's, so an entry keeps only those of its answer.
  const requestWarnings = trace.warnings.length;
  try {
    answer = parseAnswer(await cache.store.get(key));
    // A stream's entry was checked as a stream: a whole answer asked with a structure or tools is checked whole.
    if (answer?.stream && !plan.stream && (plan.output !== undefined || asksTools(plan))) answer = undefined;
    // An answer a fallback gave is this caller's only if it may use that model (a key minted narrower shares the
    // tenant, and its skipped fallback is in the same key).
    const model = answer?.completion.model;
    if (model !== undefined && model !== plan.model.id && !modelAllowed(plan.access?.models, undefined, model))
      answer = undefined;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    trace.warn({ code: 'cache_unavailable', message: `The response cache could not be read (${reason}).` });
    return undefined;
  }
  return {
    answer,
    rememberResponse: (response) => {
      response.switchyard.cache = 'miss';
      store(cache, key, answerOfResponse(response, requestWarnings));
    },
    // A stream is summed up by its first choice, without logprobs: with more, its entry would not be the answer.
    // Nor with images or audio asked: the summary holds neither's bytes.
    rememberStream: () => (summary, info) => {
      const { n, logprobs, modalities } = plan.body as {
        n?: number | null;
        logprobs?: boolean | null;
        modalities?: readonly string[] | null;
      };
      const media = (modalities ?? []).some((modality) => modality !== 'text');
      if ((n ?? 1) === 1 && !logprobs && !media) store(cache, key, answerOfStream(summary, info, requestWarnings));
    },
  };
}

/** Stores an answer under the call's key (off the request path: a failed write costs the entry only). */
function store(cache: ResponseCache, key: string, answer: CachedAnswer | undefined): void {
  // An answer kept after its fallbacks failed is not the one the request asks for: not kept for the next caller.
  if (!answer || answer.warnings.some((warning) => warning.code === 'fallback_failed')) return;
  const text = JSON.stringify(answer);
  if (utf8Length(text) > cache.maxEntryBytes) return;
  cache.store.set(key, text, cache.ttlMs).catch(() => {});
}

/** Whether the call sends tools, whose calls' arguments a whole answer has checked (and repaired). */
function asksTools(plan: CallPlan): boolean {
  const tools = (plan.body as { tools?: unknown }).tools;
  return Array.isArray(tools) && tools.length > 0;
}
