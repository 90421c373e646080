import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { actingAgent, mayActAs } from '../access/agents.ts';
import { attributedToKey, type CallAccess } from '../access/call-access.ts';
import { requireModel } from '../access/models.ts';
import { deprecationOf } from '../catalog/model-lifecycle.ts';
import { resolveDeployment } from '../deployments/resolve-deployment.ts';
import { InvalidRequestError } from '../errors.ts';
import { strictestMode } from '../guardrails/mode.ts';
import { SENT_PARAMETERS } from '../request/request-parameters.ts';
import { resolveReasoning } from '../request/resolve-reasoning.ts';
import { type FieldNotes, type FieldPath, warnUnknownFields, withoutFields } from '../request/unknown-fields.ts';
import { validateRequest } from '../request/validate-request.ts';
import { prepareSchemas } from '../structured-output/json-schema-validator.ts';
import { resolveOutputSpec } from '../structured-output/output-spec.ts';
import { renderMessages } from '../templates.ts';
import type { CompletionRequest } from '../types.ts';
import { attemptPolicy } from './attempt-policy.ts';
import type { CallPlan, CallTrace } from './call-plan.ts';
import { findModel } from './find-model.ts';
import { hedgeDelay } from './hedge.ts';
import { latencyOf } from './latency-tracker.ts';
import { type ModelReference, parseModelReference } from './parse-model.ts';
import type { RetryOptions } from './run-attempts.ts';
import type { Services } from './services.ts';

/** Per-call options: kept out of the request body so the body stays exactly OpenAI's. */
export interface CompletionOptions {
  /** Aborts the request (and a running stream). */
  signal?: AbortSignal | undefined;
  /** Overrides the gateway's retry policy for this call (`totalTimeoutMs` is the call's deadline). */
  retry?: RetryOptions | undefined;
  /** Overrides `firstTokenTimeoutMs` (of the gateway and of the provider) for this call. */
  firstTokenTimeoutMs?: number | undefined;
  /** Overrides `streamIdleTimeoutMs` (of the gateway and of the provider) for this call. */
  streamIdleTimeoutMs?: number | undefined;
  /**
   * Metadata given beside the request (the attribution keys `CompletionRequest.metadata` recognises, or any other):
   * the request's own `metadata` wins key by key. `switchyard serve` fills it from `x-switchyard-*` headers, for
   * clients whose API has no such field (the Messages API).
   */
  metadata?: Record<string, string> | undefined;
  /**
   * The caller's limits (a `serve` API key's agents, models and lineage): the pipeline refuses an agent or model
   * outside them, skips fallbacks outside them, and counts the call against the key budgets of the key's lineage.
   */
  access?: CallAccess | undefined;
}

/**
 * Stage 1: what the call asks for. Validates the request, expands a deployment into the request it stores, finds
 * the model, and builds the provider-neutral body: the parameters providers receive and the messages rendered with
 * `input`. What each candidate's model cannot take is dropped later, per candidate (`shapeRequest`).
 */
export async function resolveRequest(
  services: Services,
  request: CompletionRequest,
  options: CompletionOptions,
  trace: CallTrace,
): Promise<CallPlan> {
  // Validated first: a body that is not an object (null, a list) has no metadata to merge.
  const unknown: FieldPath[] = [];
  const notes: FieldNotes = { unknownField: (path) => unknown.push(path) };
  validateRequest(request, notes);
  if (options.metadata) request = { ...request, metadata: { ...options.metadata, ...request.metadata } };
  const parsed = parseModelReference(request.model, services.registry.reservedNames);
  const deploymentId = parsed.kind === 'deployment' ? parsed.deploymentId : undefined;
  // A deployment's request is checked again once expanded (the caller's fields merged in): its fields are those sent.
  if (deploymentId !== undefined) unknown.length = 0;
  const { request: asked, reference } =
    deploymentId === undefined
      ? { request, reference: parsed as ModelReference & { kind: 'model' } }
      : await expandDeployment(services, request, deploymentId, trace, options, notes);
  warnUnknownFields(unknown, trace);

  const { model, offerings, known } = findModel(services, reference, trace.warn);
  const deprecation = known ? deprecationOf(model) : undefined;
  if (deprecation) {
    trace.warn({ code: 'model_deprecated', param: 'model', message: deprecation.message });
    services.modelDeprecated?.(deprecation);
  }
  const { agentId, metadata } = callerOf(asked, reference, options.access);
  const written = [reference.model, `${reference.provider}/${reference.model}`];
  requireModel(options.access?.models, services.catalog, model.id, ...written);
  if (!asked.messages || asked.messages.length === 0) {
    throw new InvalidRequestError(
      '"messages" is required for a direct model call (only deployments may omit it).',
      'messages',
    );
  }
  const body: Record<string, unknown> = {};
  for (const param of SENT_PARAMETERS)
    if (asked[param as keyof CompletionRequest] !== undefined) body[param] = asked[param as keyof CompletionRequest];
  body.messages =
    asked.input === undefined
      ? asked.messages
      : renderMessages(asked.messages, asked.input, { maxRenderedBytes: services.settings.maxRenderedBytes });
  // Checked synchronously from here on: what the schemas need loaded (the interpreter's meta-schemas) is loaded first.
  const loading = prepareSchemas([asked.response_format, asked.tools], services.settings.schemaValidator);
  if (loading) await loading;

  return {
    request: asked,
    model,
    modelKnown: known,
    offerings,
    agentId,
    deploymentId,
    metadata,
    body: (unknown.length > 0 ? withoutFields(body, unknown) : body) as CallPlan['body'],
    output: resolveOutputSpec(asked.response_format, services.settings.schemaValidator),
    schemaValidator: services.settings.schemaValidator,
    reasoning: resolveReasoning(asked, model),
    promptCache: asked.prompt_cache ?? services.settings.promptCache,
    stream: asked.stream === true,
    includeUsage: asked.stream_options?.include_usage === true,
    fallbacks: asked.fallbacks ?? services.settings.fallbacks,
    routing: asked.routing ?? services.settings.routing ?? 'order',
    fallbackOn: asked.fallback_on ?? [],
    hedgeAfterMs: hedgeDelay(asked.hedge ?? services.settings.hedge, latencyOf(services)),
    streamFailover: asked.stream_failover ?? services.settings.streamFailover ?? true,
    ...attemptPolicy(services, options, trace.startedMonotonic),
    streamTimeouts: { firstTokenMs: options.firstTokenTimeoutMs, idleMs: options.streamIdleTimeoutMs },
    access: options.access,
  };
}

/**
 * The agent the call runs as (a deployment's, else `metadata.agent_id`, else a `<agent>/<model>` prefix; a key
 * limited to one agent runs as it when none is named), checked against the caller's agents, and the metadata that
 * attributes the call (records, agent budgets) naming it.
 */
function callerOf(
  asked: CompletionRequest,
  reference: ModelReference & { kind: 'model' },
  access: CallAccess | undefined,
): { agentId: string | undefined; metadata: Record<string, string> | undefined } {
  const agentId = actingAgent(access?.agents, asked.metadata?.agent_id ?? reference.agentId);
  let metadata = asked.metadata ?? undefined;
  if (agentId !== undefined && metadata?.agent_id !== agentId) metadata = { ...metadata, agent_id: agentId };
  return { agentId, metadata: attributedToKey(access?.keyId, metadata) };
}

/** The deployment's stored request, rendered with the caller's `input` and merged with the caller's settings. */
async function expandDeployment(
  services: Services,
  request: CompletionRequest,
  id: string,
  trace: CallTrace,
  { signal, access }: CompletionOptions,
  notes: FieldNotes,
): Promise<{ request: CompletionRequest; reference: ModelReference & { kind: 'model' } }> {
  const store = services.deployments;
  if (!store) {
    throw new InvalidRequestError(
      `"${request.model}" is a deployment reference, and this gateway has no deployment store: pass createGateway({ ` +
        `deployments: <directory or URL> }).`,
      'model',
      'deployment_not_found',
    );
  }
  const resolved = await resolveDeployment(store, id, request, {
    maxRenderedBytes: services.settings.maxRenderedBytes,
    signal,
    mayUseAgent: (agentId) => mayActAs(access?.agents, agentId),
    found: (deployment) => {
      const sensitiveData = deployment.version.sensitive_data;
      trace.deployment = { id: deployment.id, agentId: deployment.agent_id, sensitiveData };
    },
  });
  if (store.stale) {
    trace.warn({
      code: 'deployment_store_stale',
      message: `The deployment store is unreachable; "${id}" was served from its cache.`,
    });
  }
  const expanded = {
    ...resolved.settings,
    model: resolved.model,
    messages: resolved.messages as ChatCompletionMessageParam[],
    // The deployment's agent wins over the caller's metadata and any model prefix; trace and workflow are kept.
    metadata: { ...request.metadata, agent_id: resolved.agentId },
    // A caller's own mode only tightens the deployment's.
    sensitive_data: strictestMode(resolved.deployment.version.sensitive_data, request.sensitive_data),
  } as CompletionRequest;
  validateRequest(expanded, notes);
  const reference = parseModelReference(resolved.model, services.registry.reservedNames);
  if (reference.kind !== 'model')
    throw new InvalidRequestError(`Deployment "${id}" names another deployment as its model.`, 'model');
  return { request: expanded, reference };
}
