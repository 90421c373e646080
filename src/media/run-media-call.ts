import { actingAgent } from '../access/agents.ts';
import { attributedToKey } from '../access/call-access.ts';
import { modelAllowed, requireModel } from '../access/models.ts';
import { attemptPolicy, attemptTimeoutMs } from '../completion/attempt-policy.ts';
import { CallTrace, WarningList } from '../completion/call-plan.ts';
import { recordCall, responseInfo, whenRecorded } from '../completion/finalise.ts';
import { guardTexts, requestedMode } from '../completion/guard-request.ts';
import type { CompletionOptions } from '../completion/resolve-request.ts';
import { runAttempts } from '../completion/run-attempts.ts';
import type { Services } from '../completion/services.ts';
import type { BudgetSettlement } from '../completion/stages.ts';
import { InternalError, InvalidRequestError, SwitchyardError } from '../errors.ts';
import type { MediaApi } from '../providers/media-api.ts';
import type { Dialect } from '../records/call-record.ts';
import { type FieldPath, warnUnknownFields } from '../request/unknown-fields.ts';
import type { CompletionWarning, SwitchyardResponseInfo } from '../types.ts';
import { type MediaCandidate, mediaCandidates } from './media-catalog.ts';
import { type MediaBill, mediaTokenUsage } from './media-cost.ts';
import type { MediaKind } from './media-types.ts';

/** What one media API adds to the shared run: its kind, its texts, its worst cost, the attempt and the bill. */
export interface MediaCallSpec<T> {
  kind: MediaKind;
  dialect: Dialect;
  /** The media API the adapter must have (`generateImage`, `createSpeech`, …). */
  api: keyof MediaApi;
  request: {
    model: string;
    /** Models tried, in order, after every provider of `model` failed (each of the same kind). */
    fallbacks?: string[] | undefined;
    metadata?: Record<string, string> | null | undefined;
    user?: string | undefined;
  };
  /**
   * Why the body's checks refused it (`checkBody`): thrown once its texts are guarded, so the refusal is recorded as
   * any call's is.
   */
  refused?: unknown;
  /** The texts the provider is sent (a prompt, the text to speak): guarded (masked or refused) and recorded. */
  texts: string[];
  /** The request's fields no provider is sent (`unsentFields`): each dropped with a warning, an error under strict. */
  unsent?: FieldPath[] | undefined;
  /** The dearest this call can cost at one candidate, held against the budgets; `null`: not known. */
  worst(candidate: MediaCandidate): number | null;
  /** One try, with the texts as guarded. */
  attempt(api: MediaApi, call: MediaAttempt): Promise<T>;
  bill(value: T, candidate: MediaCandidate, warn: (warning: CompletionWarning) => void): MediaBill;
}

export interface MediaAttempt {
  model: string;
  texts: string[];
  signal: AbortSignal | undefined;
  warn(warning: CompletionWarning): void;
}

/**
 * One media call through the same stages as a completion's: the caller's agent and models, the sensitive-data guard,
 * the budgets' hold, the attempts (retries, the model's other providers, the deadline, the attempt chain on failure),
 * the `switchyard` facts and the record with its modality and units.
 */
export async function runMediaCall<T>(
  services: Services,
  spec: MediaCallSpec<T>,
  options: CompletionOptions = {},
): Promise<{ value: T; info: SwitchyardResponseInfo }> {
  const trace = new CallTrace(services.settings.strict, spec.dialect);
  let texts = spec.texts;
  let metadata: Record<string, string> = { ...options.metadata };
  let settle: BudgetSettlement | undefined;
  let media: MediaBill['usage'] | undefined;
  const model = typeof spec.request?.model === 'string' ? spec.request.model : undefined;
  try {
    // First: a call refused for anything else is recorded with its texts as guarded, never as sent.
    const guarded = guardTexts(services, texts, options.access, trace, requestedMode(spec.request));
    texts = guarded.texts;
    if (guarded.refusal) throw guarded.refusal;
    if (spec.refused !== undefined) throw spec.refused;
    if (!model) throw new InvalidRequestError('"model" is required.', 'model');
    // As chat's unknown fields: the first 20 named, each name cut short, then a count.
    warnUnknownFields(spec.unsent ?? [], trace);
    const asked = spec.request.metadata;
    if (asked != null && (typeof asked !== 'object' || Array.isArray(asked))) {
      throw new InvalidRequestError('"metadata" must be an object of strings.', 'metadata');
    }
    for (const [name, value] of Object.entries(asked ?? {}))
      if (typeof value !== 'string')
        throw new InvalidRequestError(`metadata.${name} must be a string (got ${typeof value}).`, `metadata.${name}`);
    // The caller's key, as a completion's: its records are its, and naming another key is a 403.
    metadata = attributedToKey(options.access?.keyId, { ...options.metadata, ...spec.request.metadata }) as Record<
      string,
      string
    >;
    if (spec.request.user !== undefined) metadata.user ??= spec.request.user;
    const agentId = actingAgent(options.access?.agents, metadata.agent_id);
    if (agentId !== undefined) metadata.agent_id = agentId;
    const first = servingCandidates(services, model, spec);
    requireModel(options.access?.models, undefined, first[0]!.model.id, model);
    const candidates = [...first, ...fallbackCandidates(services, spec, options.access?.models)];
    const plan = attemptPolicy(services, options, trace.startedMonotonic);
    settle = services.budgets
      ? await services.budgets.admit(
          { metadata, access: options.access },
          { usd: worstOf(candidates, spec, trace.warn), tokens: 0 },
          plan.deadlineAt,
          trace.warn,
        )
      : undefined;
    const result = await runAttempts(
      services.getProvider,
      plan,
      candidates,
      trace.attempts,
      async (provider, candidate, scope) => {
        const api = provider.media;
        if (!api?.[spec.api]) {
          throw new InternalError(`${provider.name} declares the ${spec.api} media API but its adapter has none.`);
        }
        const timeout = attemptTimeoutMs(services, candidate.offering.provider);
        const signal = scope.signalFor({ attemptTimeoutMs: timeout, streamLimits: false });
        // Each attempt's own warnings (what its provider dropped); the answering attempt's become the call's.
        const warnings = new WarningList(services.settings.strict);
        const model = candidate.offering.model;
        const value = await spec.attempt(api, { model, texts, signal, warn: warnings.warn });
        return { value, warnings: warnings.warnings };
      },
    );
    result.scope.dispose();
    trace.adopt(result.value.warnings);
    const answered = trace.attempts.at(-1);
    if (answered && result.value.warnings.length > 0) answered.warnings = result.value.warnings;
    const bill = spec.bill(result.value.value, result.candidate, trace.warn);
    media = bill.usage;
    trace.billed.push({ usage: mediaTokenUsage(media), pricing: undefined, fixed: bill.usd });
    const info = responseInfo({ agentId: metadata.agent_id }, trace, result, result.candidate.entry !== undefined);
    info.media = media;
    record(services, trace, { model, texts, metadata, media, resolved: info.model }, { info }, settle);
    // The answer leaves once its record is on disk (a journaled gateway), as a completion's does.
    return await whenRecorded(services, { value: result.value.value, info });
  } catch (thrown) {
    if (thrown instanceof SwitchyardError) thrown.callId = trace.id;
    record(services, trace, { model, texts, metadata, media }, { error: thrown }, settle);
    await services.recorder.durable();
    throw thrown;
  }
}

/**
 * A media body checked as its call's first step: the body, or why its checks refused it (`MediaCallSpec.refused`,
 * thrown inside the call). Until then the call's other parts must not read the body: it is `undefined`.
 */
export function checkBody<B>(check: () => B): { body: B; refused?: undefined } | { body: undefined; refused: unknown } {
  try {
    return { body: check() };
  } catch (error) {
    return { body: undefined, refused: error };
  }
}

/** The strings among `values`: what a refused body's texts are guarded and recorded as. */
export function textsOf(...values: unknown[]): string[] {
  return values.filter((value): value is string => typeof value === 'string');
}

/** The model's offerings whose provider has this media API; a 400 when none has. */
function servingCandidates(services: Services, model: string, spec: MediaCallSpec<unknown>): MediaCandidate[] {
  const all = mediaCandidates(model, spec.kind, services.registry, services.configuredProviders);
  const serving = all.filter((candidate) => {
    const definition = services.registry.get(candidate.offering.provider);
    return definition?.capabilities.media?.apis.includes(spec.api) ?? false;
  });
  if (serving.length > 0) return serving;
  const providers = [...new Set(all.map((candidate) => candidate.offering.provider))].join(', ');
  throw new InvalidRequestError(
    `${providers} has no ${spec.kind} API that Switchyard reaches (${spec.api}); media models: listMediaModels().`,
    'model',
    'model_not_supported',
  );
}

/** Each fallback model's serving candidates, skipped (`not_allowed`, as for chat) outside the caller's models. */
function fallbackCandidates(
  services: Services,
  spec: MediaCallSpec<unknown>,
  models: readonly string[] | null | undefined,
): MediaCandidate[] {
  const fallbacks = spec.request.fallbacks ?? [];
  if (!Array.isArray(fallbacks) || fallbacks.some((name) => typeof name !== 'string')) {
    throw new InvalidRequestError('"fallbacks" must be a list of model names.', 'fallbacks');
  }
  return fallbacks.flatMap((name) =>
    servingCandidates(services, name, spec).map((candidate) =>
      modelAllowed(models, undefined, candidate.model.id, name)
        ? candidate
        : {
            ...candidate,
            skip: { outcome: 'not_allowed', message: `This API key may not use ${name}; the fallback was skipped.` },
          },
    ),
  );
}

/** The dearest candidate's worst cost; one not known holds nothing, said in a warning (its cost will be `null`). */
function worstOf(
  candidates: readonly MediaCandidate[],
  spec: MediaCallSpec<unknown>,
  warn: (warning: CompletionWarning) => void,
): number {
  const costs = candidates.filter((candidate) => !candidate.skip).map((candidate) => spec.worst(candidate));
  if (costs.some((cost) => cost === null)) {
    warn({
      code: 'budget_estimate_unknown',
      message: 'A candidate of this call has no known price: the budgets hold nothing for it.',
    });
  }
  return Math.max(0, ...costs.map((cost) => cost ?? 0));
}

function record(
  services: Services,
  trace: CallTrace,
  call: {
    model: string | undefined;
    texts: string[];
    metadata: Record<string, string>;
    media: MediaBill['usage'] | undefined;
    resolved?: string;
  },
  outcome: { info?: SwitchyardResponseInfo; error?: unknown },
  settle: BudgetSettlement | undefined,
): void {
  // The texts sent (a prompt, the text spoken) stand as the record's input messages.
  const messages = call.texts.map((text) => ({ role: 'user' as const, content: text }));
  const { metadata } = call;
  const facts = {
    request: { model: call.model, metadata },
    model: call.resolved ?? call.model,
    agentId: metadata.agent_id,
    metadata,
    messages,
    media: call.media,
  };
  recordCall(services, facts, trace, outcome, settle);
}
