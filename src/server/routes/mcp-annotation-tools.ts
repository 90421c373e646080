import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { annotationSchemas } from '../../annotations/annotation-schema.ts';
import type { Gateway } from '../../gateway.ts';
import type { KeyAccess } from '../key-access.ts';
import { addAnnotations, listAnnotations } from './annotations.ts';
import { asJson } from './mcp-reply.ts';

/**
 * The annotation tools of `/mcp`: `add_annotations` (as `POST /v1/annotations`) and `get_annotations` (as
 * `GET /v1/annotations`), under the same key rules.
 */
export function registerAnnotationTools(server: McpServer, gateway: Gateway, access: KeyAccess): void {
  server.registerTool(
    'add_annotations',
    {
      description:
        'Annotates recorded calls: per annotation a target ({ call_id }), text and/or a metric ({ name, value }), ' +
        'optionally key_path, one field of a structured output (items.0.price). Stored all or none. Needs ' +
        'annotations:write; a call outside the key’s agents is answered as one that does not exist.',
      inputSchema: annotationSchemas().add,
    },
    async ({ annotations }) => asJson({ object: 'list', data: await addAnnotations(gateway, annotations, access) }),
  );
  server.registerTool(
    'get_annotations',
    {
      description:
        'Lists annotations newest first, filtered by agent_id, call_id, experiment_id, metric (name), since, ' +
        'until; limit and cursor page. Only those of the calls this key reads (calls:read or calls:read:own).',
      inputSchema: annotationSchemas().query,
      annotations: { readOnlyHint: true },
    },
    async (query) => asJson(await listAnnotations(gateway, query, access)),
  );
}
