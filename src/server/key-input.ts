import type * as Zod from 'zod';
import { isMcpToolPattern } from '../access/mcp-tools.ts';
import { SCOPES } from '../access/scopes.ts';
import { lazyRequire } from '../internal/lazy-require.ts';

const loadZod = lazyRequire<typeof Zod>('zod');

/**
 * The input of `create_api_key` (`POST /v1/keys`), built on first use so that zod (~20 MB and ~170 ms to load) is
 * loaded by the first key created, not by every server's start.
 */
export const createKeyInput = () => (schema ??= buildSchema(loadZod().z));
let schema: ReturnType<typeof buildSchema> | undefined;
export type CreateKeyInput = Zod.infer<ReturnType<typeof buildSchema>>;

function buildSchema(z: typeof Zod.z) {
  return z
    .object({
      name: z.string().max(200).optional().describe('A label to recognise the key by in `switchyard keys list`.'),
      scopes: z
        .array(z.enum(SCOPES))
        .max(SCOPES.length)
        .optional()
        .describe("The new key's scopes, among the caller's own. Omit for the caller's, without keys:create."),
      allowed_agents: z
        .array(z.string().min(1).max(200))
        .max(100)
        .optional()
        .describe(
          "Agents the new key may call as (and read the calls of); within the caller's. Omit for the caller's.",
        ),
      allowed_models: z
        .array(z.string().min(1).max(200))
        .max(100)
        .optional()
        .describe("Models the new key may call; within the caller's. Omit for the caller's."),
      mcp_tools: z
        .array(z.string().min(1).max(200).refine(isMcpToolPattern, 'expected *, <server>__* or <server>__<tool>'))
        .max(100)
        .optional()
        .describe(
          'Upstream MCP tools the new key may list and call (github__*, search__web); ' +
            "within the caller's. Omit for none.",
        ),
      expires_in_seconds: z
        .number()
        .int()
        .min(60)
        .max(366 * 86_400)
        .optional()
        .describe("Seconds until the new key expires; never after the caller's own expiry."),
    })
    .strict();
}
