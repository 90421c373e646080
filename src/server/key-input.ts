import * as z from 'zod';
import { SCOPES } from './key-scopes.ts';

/**
 * The body of `POST /v1/keys` and the MCP tool `create_api_key`. A module of its own so that zod (~20 MB and
 * ~170 ms to load) is loaded by the first key created, not by every server's start.
 */
export const createKeyInput = z
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
      .describe("Agents the new key may call as (and read the calls of); within the caller's. Omit for the caller's."),
    allowed_models: z
      .array(z.string().min(1).max(200))
      .max(100)
      .optional()
      .describe("Models the new key may call; within the caller's. Omit for the caller's."),
    expires_in_seconds: z
      .number()
      .int()
      .min(60)
      .max(366 * 86_400)
      .optional()
      .describe("Seconds until the new key expires; never after the caller's own expiry."),
  })
  .strict();
export type CreateKeyInput = z.infer<typeof createKeyInput>;
