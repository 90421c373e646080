import type { CallPlan } from '../completion/stages.ts';
import { canonicalJson } from '../internal/canonical-json.ts';
import { sha256Hex } from '../internal/sha256.ts';

/**
 * Parameters that reach the provider but not the answer: who the end user is. Two calls differing only in them
 * share an entry. What a provider stores or bills, and how its prompt cache is keyed, are in the key: a provider
 * that cannot take one drops it with a warning (an error under strict), which a hit must not skip.
 */
const NOT_IN_THE_ANSWER = new Set(['user', 'safety_identifier']);

/**
 * The response cache's key for a call: a SHA-256 of the tenant and of the request as it reaches the model, in one
 * canonical JSON (object keys sorted): the resolved model and its offerings, the messages after templating, the
 * parameters providers receive except those that do not change the answer, and the gateway's own that do
 * (structured output, reasoning, tool-argument checks, fallbacks and what they are tried on). Metadata, `stream`
 * and `stream_options` are left out: a streamed answer and a non-streamed one are the same answer.
 */
export function cacheKey(plan: CallPlan, tenant: string): string {
  const sent: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(plan.body)) if (!NOT_IN_THE_ANSWER.has(name)) sent[name] = value;
  const { request } = plan;
  const keyed = {
    tenant,
    model: plan.model.id,
    offerings: plan.offerings.map((offering) => `${offering.provider}/${offering.model}`),
    sent,
    response_format: request.response_format,
    reasoning: plan.reasoning,
    // Claude's thinking text, or its signatures alone.
    thinking_display: plan.thinkingDisplay,
    tool_call_validation: request.tool_call_validation,
    structured_output_fallback: request.structured_output_fallback,
    fallbacks: plan.fallbacks,
    // What makes a later candidate answer instead (a refusal, a content filter): part of which answer is given.
    fallback_on: plan.fallbackOn,
  };
  return sha256Hex(canonicalJson(keyed));
}

/**
 * Whether `cache: 'auto'` caches the call: a request that asks for the same answer every time, `temperature: 0`
 * or a `seed` (its own or its deployment's). An unset temperature is the provider's default (1 for most), so not.
 */
export function isDeterministic(plan: CallPlan): boolean {
  return plan.body.temperature === 0 || typeof plan.body.seed === 'number';
}
