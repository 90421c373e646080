import type { CompletionOptions } from '../completion/resolve-request.ts';
import type { ApiKeyInfo } from './api-keys.ts';
import type { ServerRequest } from './exchange.ts';
import { forbidden, requireCallAllowed } from './key-scopes.ts';

/** Headers that attribute a call, for clients whose API has no `metadata` for it (Claude Code's custom headers). */
const METADATA_HEADERS = {
  'x-switchyard-agent-id': 'agent_id',
  'x-switchyard-trace-id': 'trace_id',
  'x-switchyard-workflow-name': 'workflow_name',
} as const;

/**
 * A call's options from its HTTP request: aborted when the client goes away, attributed by its `x-switchyard-*`
 * headers (the body's own `metadata` wins key by key).
 */
export function callOptions(request: ServerRequest): CompletionOptions {
  let metadata: Record<string, string> | undefined;
  for (const [header, key] of Object.entries(METADATA_HEADERS)) {
    const value = request.header(header);
    if (value !== undefined && value !== '') (metadata ??= {})[key] = value;
  }
  return metadata ? { signal: request.signal, metadata } : { signal: request.signal };
}

/**
 * `callOptions`, after checking that the caller's key may make this call: a key limited to some models or agents
 * names one of them (the agent from the body's `metadata.agent_id`, else the header).
 */
export function allowedCallOptions(
  request: ServerRequest,
  key: ApiKeyInfo | undefined,
  body: { model?: unknown; metadata?: unknown },
): CompletionOptions {
  const options = callOptions(request);
  if (key) {
    const metadata = body?.metadata as { agent_id?: unknown; api_key_id?: unknown } | null | undefined;
    // The server sets it from the key that authenticated; a body naming another key would dodge its budgets.
    if (metadata?.api_key_id !== undefined && metadata.api_key_id !== key.id)
      throw forbidden('metadata.api_key_id is set by the server from the API key; leave it out');
    const agentId = typeof metadata?.agent_id === 'string' ? metadata.agent_id : options.metadata?.agent_id;
    requireCallAllowed(key, body?.model, agentId);
    // The key's id (never the key) attributes the call, in its record and for per-key budgets.
    options.metadata = { ...options.metadata, api_key_id: key.id };
  }
  return options;
}
