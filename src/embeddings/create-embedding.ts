import { actingAgent } from '../access/agents.ts';
import { attributedToKey, type CallAccess } from '../access/call-access.ts';
import { requireModel } from '../access/models.ts';
import { attemptPolicy, attemptTimeoutMs } from '../completion/attempt-policy.ts';
import { CallTrace } from '../completion/call-plan.ts';
import { recordCall, responseInfo, whenRecorded } from '../completion/finalise.ts';
import { guardTexts } from '../completion/guard-request.ts';
import type { CompletionOptions } from '../completion/resolve-request.ts';
import { runAttempts } from '../completion/run-attempts.ts';
import type { Services } from '../completion/services.ts';
import type { BudgetSettlement } from '../completion/stages.ts';
import { InvalidRequestError, SwitchyardError } from '../errors.ts';
import { toBase64 } from '../internal/bytes.ts';
import { estimateTokens } from '../internal/estimate-tokens.ts';
import { invalidResponse } from '../providers/provider-errors.ts';
import { type EmbeddingCandidate, embeddingCandidates } from './embedding-catalog.ts';
import type { EmbeddingRequest, EmbeddingResponse } from './embedding-types.ts';
import { validateEmbeddingRequest } from './validate-embedding.ts';

/**
 * One embeddings call, through the same attempts as a completion (retries with backoff, the next provider of the
 * model, the call's deadline) and recorded the same way, with the dialect `embeddings` and its cost.
 */
export async function createEmbedding(
  services: Services,
  request: EmbeddingRequest,
  options: CompletionOptions = {},
): Promise<EmbeddingResponse> {
  const trace = new CallTrace(services.settings.strict, 'embeddings');
  let texts: string[] = [];
  let metadata: Record<string, string> = { ...options.metadata };
  let settle: BudgetSettlement | undefined;
  try {
    validateEmbeddingRequest(request);
    texts = typeof request.input === 'string' ? [request.input] : request.input;
    // Masked (or refused) before anything else reads them: the record keeps what the provider is sent.
    const guarded = guardTexts(services, texts, options.access, trace, request.sensitive_data);
    texts = guarded.texts;
    if (guarded.refusal) throw guarded.refusal;
    metadata = { ...options.metadata, ...request.metadata };
    if (request.user !== undefined) metadata.user ??= request.user;
    const candidates = servingCandidates(services, request);
    metadata = embeddingCaller(metadata, request, candidates[0]!.model.id, options.access);
    const plan = attemptPolicy(services, options, trace.startedMonotonic);
    // The input's tokens at the dearest candidate, held against the budgets until the call is recorded.
    const input = texts.reduce((sum, text) => sum + estimateTokens(text), 0);
    const dearest = Math.max(0, ...candidates.map((candidate) => candidate.offering.pricing?.input ?? 0));
    const worst = { usd: (input * dearest) / 1e6, tokens: input };
    settle = services.budgets
      ? await services.budgets.admit({ metadata, access: options.access }, worst, plan.deadlineAt, trace.warn)
      : undefined;
    const result = await runAttempts(
      services.getProvider,
      plan,
      candidates,
      trace.attempts,
      (provider, candidate, scope) => {
        const timeout = attemptTimeoutMs(services, candidate.offering.provider);
        return provider.embed!({
          model: candidate.offering.model,
          input: texts,
          dimensions: request.dimensions,
          catalogDimensions: candidate.entry?.dimensions,
          user: request.user,
          signal: scope.signalFor({ attemptTimeoutMs: timeout, streamLimits: false }),
          warn: trace.warn,
        }).then((answer) => {
          if (answer.vectors.length !== texts.length) {
            throw invalidResponse(
              { provider: provider.name, model: candidate.offering.model },
              `${answer.vectors.length} vectors for ${texts.length} inputs`,
            );
          }
          return answer;
        });
      },
    );
    result.scope.dispose();
    const { candidate } = result;
    // A provider (or an uncatalogued model) that did not shorten its vectors as asked: said, never passed off.
    const asked = request.dimensions;
    const length = result.value.vectors.find((vector) => vector.length !== asked)?.length;
    if (asked !== undefined && length !== undefined)
      trace.warn({
        code: 'unsupported_parameter',
        param: 'dimensions',
        message: `${candidate.offering.provider} sent vectors of ${length} values: dimensions ${asked} was ignored.`,
      });
    const tokens = result.value.promptTokens ?? estimatedTokens(texts, trace);
    const price = candidate.offering.pricing?.input;
    trace.billed.push({
      usage: { prompt_tokens: tokens, completion_tokens: 0 },
      pricing: price === undefined ? undefined : { input: price, output: 0, cached_input: price },
    });
    const info = responseInfo({ agentId: metadata.agent_id }, trace, result, candidate.entry !== undefined);
    const base64 = request.encoding_format === 'base64';
    const response: EmbeddingResponse = {
      object: 'list',
      data: result.value.vectors.map((vector, index) => ({
        object: 'embedding',
        index,
        embedding: base64 ? float32Base64(vector) : vector,
      })),
      model: candidate.model.id,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
      switchyard: info,
    };
    record(services, request, trace, texts, metadata, { info }, settle);
    return await whenRecorded(services, response);
  } catch (thrown) {
    if (thrown instanceof SwitchyardError) thrown.callId = trace.id;
    record(services, request, trace, texts, metadata, { error: thrown }, settle);
    await services.recorder.durable();
    throw thrown;
  }
}

/**
 * The caller's limits, as for a completion: the agent the call runs as (a key's only agent when none is named) and
 * the model (its catalog id, or as written), which must be among the caller's.
 */
function embeddingCaller(
  metadata: Record<string, string>,
  request: EmbeddingRequest,
  modelId: string,
  access: CallAccess | undefined,
): Record<string, string> {
  const agentId = actingAgent(access?.agents, metadata.agent_id);
  // The catalog's id and the name as written, as a completion's model is checked (`openai/<id>` is `<id>`).
  requireModel(access?.models, undefined, modelId, request.model);
  // The caller's key, as a completion's: its records are its, and naming another key is a 403.
  const attributed = attributedToKey(access?.keyId, metadata) as Record<string, string>;
  return agentId === undefined ? attributed : { ...attributed, agent_id: agentId };
}

/** The model's offerings whose provider has an embeddings API; a 400 when none has, and dimensions checked. */
function servingCandidates(services: Services, request: EmbeddingRequest): EmbeddingCandidate[] {
  const all = embeddingCandidates(request.model, services.registry, services.configuredProviders);
  const serving = all.filter(
    (candidate) => services.registry.get(candidate.offering.provider)?.capabilities.embeddings,
  );
  if (serving.length === 0) {
    throw new InvalidRequestError(
      `${all.map((candidate) => candidate.offering.provider).join(', ')} has no embeddings API that Switchyard ` +
        `reaches; embedding models: the catalog's (listEmbeddingModels()), or <provider>/<id> on a provider ` +
        'that has one.',
      'model',
      'model_not_supported',
    );
  }
  const entry = serving[0]!.entry;
  const asked = request.dimensions;
  if (entry && asked !== undefined && asked !== entry.dimensions && (!entry.shortenable || asked > entry.dimensions)) {
    throw new InvalidRequestError(
      `${entry.id} gives ${entry.dimensions} dimensions` +
        `${entry.shortenable ? ', or fewer' : ' and cannot shorten them'}; "dimensions" is ${asked}.`,
      'dimensions',
    );
  }
  return serving;
}

/** A provider that does not count tokens (Gemini's embeddings): four characters a token, said in a warning. */
function estimatedTokens(texts: string[], trace: CallTrace): number {
  trace.warn({
    code: 'usage_estimated',
    message: 'The provider does not report the tokens of embeddings; usage (and cost) count four characters a token.',
  });
  return texts.reduce((sum, text) => sum + Math.max(1, Math.ceil(text.length / 4)), 0);
}

/** OpenAI's base64 form: the vector as little-endian float32s. */
function float32Base64(vector: number[]): string {
  const floats = Float32Array.from(vector);
  return toBase64(new Uint8Array(floats.buffer, floats.byteOffset, floats.byteLength));
}

function record(
  services: Services,
  request: EmbeddingRequest,
  trace: CallTrace,
  texts: string[],
  metadata: Record<string, string>,
  outcome: { info?: EmbeddingResponse['switchyard']; error?: unknown },
  settle: BudgetSettlement | undefined,
): void {
  const model = typeof request?.model === 'string' ? request.model : undefined;
  // The texts embedded stand as the record's input messages.
  const messages = texts.map((text) => ({ role: 'user' as const, content: text }));
  const facts = { request: { model, metadata }, model: outcome.info?.model ?? model, agentId: metadata.agent_id };
  recordCall(services, { ...facts, metadata, messages }, trace, outcome, settle);
}
