import type * as Zod from 'zod';
import { DOLLAR_WINDOWS, keyLimitsProblem } from '../access/key-limits.ts';
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

/** The input of `update_api_key` (`PATCH /v1/keys/{id}`): the key, and its new limits. */
export const updateKeyInput = () => (updateSchema ??= buildUpdateSchema(loadZod().z));
let updateSchema: ReturnType<typeof buildUpdateSchema> | undefined;
export type UpdateKeyInput = Zod.infer<ReturnType<typeof buildUpdateSchema>>;

function buildUpdateSchema(z: typeof Zod.z) {
  return z
    .object({
      key: z.string().min(1).max(200).describe('The id (key_…) or prefix (sy-AbCdEfGh) of the key to change.'),
      limits: limitsSchema(z)
        .nullable()
        .describe("The key's limits, replacing all of them; null or {} for the server's defaults."),
    })
    .strict();
}

/** A key's own limits (`src/access/key-limits.ts`), each within its parent's. */
function limitsSchema(z: typeof Zod.z) {
  const count = (max: number) => z.number().int().min(1).max(max).optional();
  return z
    .object({
      requests_per_minute: count(10_000_000).describe('Requests a minute, counted on every route.'),
      tokens_per_minute: count(1_000_000_000).describe('Tokens in and out a minute.'),
      max_in_flight: count(100_000).describe('Requests in flight at once.'),
      budgets: z
        .array(z.string().max(40))
        .max(DOLLAR_WINDOWS.length)
        .optional()
        .describe("Dollar budgets per window: 5/day, 100/month, 20 (the key's lifetime)."),
    })
    .strict()
    .superRefine((limits, context) => {
      const problem = keyLimitsProblem(limits);
      if (problem) context.addIssue({ code: 'custom', path: ['budgets'], message: problem });
    });
}

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
      sensitive_data: z
        .enum(['off', 'mask', 'block'])
        .optional()
        .describe(
          "Personal data and secrets in the new key's calls: mask, block or off; never looser than the caller's.",
        ),
      expires_in_seconds: z
        .number()
        .int()
        .min(60)
        .max(366 * 86_400)
        .optional()
        .describe("Seconds until the new key expires; never after the caller's own expiry."),
      limits: limitsSchema(z)
        .optional()
        .describe("The new key's rate, in-flight and budget limits; each within the caller's. Omit for none."),
    })
    .strict();
}
