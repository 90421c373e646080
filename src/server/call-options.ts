import type { CompletionOptions } from '../completion/resolve-request.ts';
import type { ServerRequest } from './exchange.ts';

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
