import type { CallAccess } from '../access/call-access.ts';
import { InternalError, SwitchyardError } from '../errors.ts';
import { GuardrailRefusedError, SensitiveDataError } from '../guardrails/errors.ts';
import type { Guardrail, GuardrailContext } from '../guardrails/guardrail.ts';
import { describeCounts } from '../guardrails/kinds.ts';
import { Masker } from '../guardrails/masker.ts';
import { isSensitiveDataMode, type SensitiveDataMode, strictestMode } from '../guardrails/mode.ts';
import type { JsonSchema } from '../structured-output/json-schema-validator.ts';
import type { CompletionRequest, CompletionResponse } from '../types.ts';
import type { CallPlan, CallTrace } from './call-plan.ts';
import type { Services } from './services.ts';

/**
 * Stage 1b, before the response cache and any provider: the sensitive-data guard, then the gateway's own
 * guardrails. The mode is the strictest of the gateway's, the caller's key's and the request's (a deployment's
 * stored one included): `mask` replaces what the detectors find by typed placeholders in the messages sent, so the
 * cache key and every provider body hold the masked text; `block` refuses the call. What was decided travels in the
 * trace (mode and counts, never a value) to the answer's facts and the record. Returns the plan to send and the
 * request as the record keeps it (masked too).
 */
export async function guardRequest(
  services: Services,
  plan: CallPlan,
  request: CompletionRequest,
  trace: CallTrace,
): Promise<{ plan: CallPlan; recorded: CompletionRequest }> {
  const mode = strictestMode(services.settings.sensitiveData, plan.access?.sensitiveData, plan.request.sensitive_data);
  let guarded = plan;
  let recorded = request;
  if (mode !== 'off') {
    const masker = new Masker();
    // In the prompt's order, tools first: the same tools keep the same placeholders turn after turn (a cached prefix).
    const where: string[] = [];
    const beside = maskBesideMessages(plan.body, masker, where);
    const output = maskOutput(plan.output, masker, where);
    const messages = foundIn(masker, where, 'messages', () => maskMessages(plan.body.messages, masker, true));
    trace.sensitiveData = { mode, found: masker.counts };
    recorded = maskRequest(request, masker);
    trace.recorded = { request: recorded, messages };
    if (mode === 'block' && masker.found) throw new SensitiveDataError(masker.counts, where.join(', '));
    if (masker.found) {
      trace.warn({
        code: 'sensitive_data_masked',
        param: where.join(', '),
        message: `Masked before any provider saw them: ${describeCounts(masker.counts)} (placeholders like [EMAIL_1]).`,
      });
      const body = { ...plan.body, ...beside, messages };
      guarded = { ...plan, request: maskRequest(plan.request, masker), body, output };
    }
  }
  const guardrails = services.guardrails;
  if (guardrails.length === 0) return { plan: guarded, recorded };
  const context = (name: string): GuardrailContext => ({
    callId: trace.id,
    model: plan.model.id,
    agentId: plan.agentId,
    deploymentId: plan.deploymentId,
    keyId: plan.access?.keyId,
    sensitiveData: { mode, found: { ...trace.sensitiveData?.found } },
    refuse: (reason) => {
      throw new GuardrailRefusedError(name, reason, trace.answered ? 'response' : 'request');
    },
  });
  trace.guardrailContext = context;
  for (const guardrail of guardrails) {
    if (!guardrail.onRequest) continue;
    const rewritten = await run(guardrail, () =>
      guardrail.onRequest!({ messages: guarded.body.messages }, context(guardrail.name)),
    );
    if (rewritten?.messages) guarded = { ...guarded, body: { ...guarded.body, messages: rewritten.messages } };
  }
  if (plan.stream && guardrails.some((guardrail) => guardrail.onResponse)) {
    const names = guardrails.filter((guardrail) => guardrail.onResponse).map((guardrail) => `"${guardrail.name}"`);
    trace.warn({
      code: 'guardrail_not_applied',
      message: `A streamed answer reaches the caller as it is made: onResponse of ${names.join(', ')} did not run.`,
    });
  }
  return { plan: guarded, recorded };
}

/** The gateway's `onResponse` guardrails over a complete answer, in order: each may rewrite it or refuse it. */
export async function guardAnswer(
  services: Services,
  trace: CallTrace,
  answer: CompletionResponse,
): Promise<CompletionResponse> {
  const context = trace.guardrailContext;
  if (!context) return answer;
  trace.answered = true;
  let current = answer;
  for (const guardrail of services.guardrails) {
    if (!guardrail.onResponse) continue;
    const rewritten = await run(guardrail, () => guardrail.onResponse!(current, context(guardrail.name)));
    if (rewritten) current = rewritten;
  }
  return current;
}

/**
 * The texts of an embedding or media call under the gateway's, the key's and the request's sensitive-data mode,
 * masked, and the refusal to throw under `block`: the caller records the masked texts either way.
 */
export function guardTexts(
  services: Services,
  texts: readonly string[],
  access: CallAccess | undefined,
  trace: CallTrace,
  requested?: SensitiveDataMode,
): { texts: string[]; refusal?: SensitiveDataError } {
  const mode = strictestMode(services.settings.sensitiveData, access?.sensitiveData, requested);
  if (mode === 'off') return { texts: [...texts] };
  const masker = new Masker();
  const masked = texts.map((text) => masker.mask(text));
  trace.sensitiveData = { mode, found: masker.counts };
  if (mode === 'block' && masker.found) {
    return { texts: masked, refusal: new SensitiveDataError(masker.counts, 'input') };
  }
  if (masker.found) {
    trace.warn({
      code: 'sensitive_data_masked',
      param: 'input',
      message: `Masked before any provider saw them: ${describeCounts(masker.counts)} (placeholders like [EMAIL_1]).`,
    });
  }
  return { texts: masked };
}

/** A guardrail's own refusal passes as it is; anything else it throws is a fault of the gateway's code, a 500. */
async function run<T>(guardrail: Guardrail, hook: () => T | Promise<T>): Promise<T> {
  try {
    return await hook();
  } catch (error) {
    if (error instanceof SwitchyardError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw Object.assign(new InternalError(`Guardrail "${guardrail.name}" failed: ${reason}`, error), {
      code: 'guardrail_failed',
    });
  }
}

/** The mode a request asks for itself, read defensively: a request that failed validation may carry anything. */
export function requestedMode(request: unknown): SensitiveDataMode | undefined {
  const mode = (request as { sensitive_data?: unknown } | null)?.sensitive_data;
  return isSensitiveDataMode(mode) ? mode : undefined;
}

/**
 * The request as a failed call's record keeps it, when the call failed before the guard ran (an invalid request,
 * an unknown model): masked under the gateway's or the key's mode, so a refusal never stores what masking hides.
 */
export function recordedOnFailure(
  services: Services,
  request: CompletionRequest,
  trace: CallTrace,
  access: CallAccess | undefined,
): CompletionRequest {
  if (trace.recorded) return trace.recorded.request;
  const mode = strictestMode(
    services.settings.sensitiveData,
    access?.sensitiveData,
    requestedMode(request),
    trace.deployment?.sensitiveData,
  );
  return mode === 'off' ? request : maskRequest(request, new Masker());
}

function maskRequest(request: CompletionRequest, masker: Masker): CompletionRequest {
  if (request === null || typeof request !== 'object') return request;
  const masked = { ...request };
  if (Array.isArray(request.messages)) masked.messages = maskMessages(request.messages, masker, false);
  if (request.input !== undefined) masked.input = maskValue(request.input, masker) as CompletionRequest['input'];
  return masked;
}

/**
 * What else of the body the model reads: its tools' descriptions and parameters, a predicted output (the answer's
 * schema is the output spec's: `maskOutput`).
 */
const READ_BESIDE_MESSAGES = ['tools', 'functions', 'prediction'] as const;

/** Those of them the body has, masked (and counted) as the messages are; names and types are left as they are. */
function maskBesideMessages(body: CallPlan['body'], masker: Masker, where: string[]): Partial<CallPlan['body']> {
  const masked: Record<string, unknown> = {};
  for (const field of READ_BESIDE_MESSAGES)
    if (body[field] !== undefined && body[field] !== null)
      masked[field] = foundIn(masker, where, field, () => maskValue(body[field], masker, true));
  return masked as Partial<CallPlan['body']>;
}

/** `mask()`'s result, with `field` added to `where` when it found something: what a refusal or warning names. */
function foundIn<T>(masker: Masker, where: string[], field: string, mask: () => T): T {
  const before = masker.total;
  const masked = mask();
  if (masker.total > before) where.push(field);
  return masked;
}

/**
 * The answer's schema as it is sent (natively, or in the prompt), masked: its description and the strings in it. The
 * answer is still checked against the caller's schema as written (the validator compiled from it).
 */
function maskOutput(spec: CallPlan['output'], masker: Masker, where: string[]): CallPlan['output'] {
  if (spec?.kind !== 'json_schema' || spec.schema === undefined) return spec;
  const schema = foundIn(masker, where, 'response_format', () => maskValue(spec.schema, masker, true) as JsonSchema);
  const modelSchema = spec.modelSchema === spec.schema ? schema : (maskValue(spec.modelSchema, masker) as JsonSchema);
  const description = spec.description === undefined ? undefined : masker.mask(spec.description, true);
  return { ...spec, schema, modelSchema, ...(description === undefined ? {} : { description }) };
}

/** Every text a message carries: its content (string or text parts), a tool's result, tool-call arguments. */
function maskMessages<Message>(messages: Message[], masker: Masker, count: boolean): Message[] {
  return messages.map((message) => maskValue(message, masker, count) as Message);
}

/** Each string inside `value` masked (JSON arguments stay JSON: placeholders hold no quotes). */
function maskValue(value: unknown, masker: Masker, count = false): unknown {
  if (typeof value === 'string') return masker.mask(value, count);
  if (value === null || typeof value !== 'object') return value;
  // Copied only where something was masked: an agent's tens of kB of tools, clean, stay the objects they were.
  if (Array.isArray(value)) {
    let items: unknown[] | undefined;
    for (const [index, item] of value.entries()) {
      const after = maskValue(item, masker, count);
      if (after !== item) (items ??= [...value])[index] = after;
    }
    return items ?? value;
  }
  let fields: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(value)) {
    if (MASKED_NOT.has(key)) continue;
    const after = maskValue(item, masker, count);
    if (after !== item) (fields ??= { ...value })[key] = after;
  }
  return fields ?? value;
}

/** Fields of a message that are names and ids, never free text: left as they are. */
// Images, audio and files are data, not text; reasoning details are signed and must travel back unchanged.
const MASKED_NOT = new Set([
  'role',
  'type',
  'id',
  'tool_call_id',
  'name',
  'cache_control',
  'image_url',
  'input_audio',
  'file',
  'reasoning_details',
]);
