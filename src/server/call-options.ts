import { attributedToKey } from '../access/call-access.ts';
import type { CompletionOptions } from '../completion/resolve-request.ts';
import { ATTRIBUTION_FIELDS, type AttributionField } from '../records/call-record.ts';
import type { ServerRequest } from './exchange.ts';
import type { KeyAccess } from './key-access.ts';

/**
 * Headers that attribute a call, for clients whose API has no `metadata` for it (Claude Code's custom headers): one
 * per attribution field, `agent_id` as `x-switchyard-agent-id`.
 */
export const ATTRIBUTION_HEADERS: ReadonlyMap<string, AttributionField> = new Map(
  ATTRIBUTION_FIELDS.map((field) => [`x-switchyard-${field.replaceAll('_', '-')}`, field]),
);

/**
 * A call's options from its HTTP request: aborted when the client goes away, attributed by its `x-switchyard-*`
 * headers (the body's own `metadata` wins key by key).
 */
function callOptions(request: ServerRequest): CompletionOptions {
  let metadata: Record<string, string> | undefined;
  for (const [header, key] of ATTRIBUTION_HEADERS) {
    const value = request.header(header);
    if (value !== undefined && value !== '') (metadata ??= {})[key] = value;
  }
  return metadata ? { signal: request.signal, metadata } : { signal: request.signal };
}

/**
 * `callOptions` with the caller's key applied: the key's limits go with the call as its `access`, which the
 * pipeline enforces on the agent the call really runs as (after a deployment is expanded) and on every model it
 * tries, whatever the dialect. The body's attribution is carried beside the call too, so a dialect whose
 * translation has no `metadata` (the Messages API) is attributed as its caller said.
 */
export function allowedCallOptions(
  request: ServerRequest,
  access: KeyAccess | undefined,
  body: { metadata?: unknown },
): CompletionOptions {
  const options = callOptions(request);
  const metadata = body?.metadata as Record<string, unknown> | null | undefined;
  if (metadata && typeof metadata === 'object') {
    for (const key of ATTRIBUTION_FIELDS) {
      const value = metadata[key];
      if (typeof value === 'string' && value !== '') options.metadata = { ...options.metadata, [key]: value };
    }
  }
  if (!access) return options;
  // Checked on the body as sent, whatever a dialect's translation keeps of its metadata (the Messages API's none).
  if (metadata && typeof metadata === 'object') attributedToKey(access.key.id, metadata);
  // The key's id (never the key) attributes the call, in its record and for per-key budgets.
  options.metadata = attributedToKey(access.key.id, options.metadata ?? {});
  options.access = access.forCall();
  return options;
}
