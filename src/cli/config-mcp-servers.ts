import { resolve } from 'node:path';
import { z } from 'zod';
import type { McpUpstreamSettings } from '../server/mcp-gateway/upstream-settings.ts';
import { type Secret, secretSchema as secret } from './config-secrets.ts';

/**
 * `mcp_servers` in `serve --config`'s file: the upstream MCP servers whose tools `/mcp` offers, by name. A header's or
 * an environment variable's value is a secret like the providers' keys: written, or `{ env: NAME }`.
 */
const positiveInteger = z.number().int().positive();

const upstreamSchema = z.strictObject({
  url: z.string().min(1).optional(),
  /** `Authorization: Bearer <token>`, the gateway's own credential for the server. */
  bearer_token: secret.optional(),
  headers: z.record(z.string().min(1), secret).optional(),
  command: z.string().min(1).optional(),
  args: z.array(z.string()).optional(),
  env: z.record(z.string().min(1), secret).optional(),
  cwd: z.string().min(1).optional(),
  timeout_ms: positiveInteger.optional(),
  max_result_bytes: positiveInteger.optional(),
  tools_ttl_ms: positiveInteger.optional(),
  listing_wait_ms: positiveInteger.optional(),
});

export const mcpServersSchema = z.record(z.string().min(1), upstreamSchema);

/** The file's `mcp_servers` as `serve` takes them: secrets read by `read` (named by their path), `cwd` resolved. */
export function mcpServersOf(
  file: z.infer<typeof mcpServersSchema>,
  dir: string,
  read: (value: Secret, path: string) => string,
): McpUpstreamSettings[] {
  return Object.entries(file).map(([name, server]) => {
    const at = `mcp_servers.${name}`;
    const secrets = (values: Record<string, Secret> | undefined, what: string) =>
      values && Object.fromEntries(Object.entries(values).map(([k, v]) => [k, read(v, `${at}.${what}.${k}`)]));
    const headers = {
      ...secrets(server.headers, 'headers'),
      ...(server.bearer_token ? { authorization: `Bearer ${read(server.bearer_token, `${at}.bearer_token`)}` } : {}),
    };
    const settings: McpUpstreamSettings = {
      name,
      url: server.url,
      headers: Object.keys(headers).length > 0 ? headers : undefined,
      command: server.command,
      args: server.args,
      env: secrets(server.env, 'env'),
      cwd: server.cwd === undefined ? undefined : resolve(dir, server.cwd),
      timeoutMs: server.timeout_ms,
      maxResultBytes: server.max_result_bytes,
      toolsTtlMs: server.tools_ttl_ms,
      listingWaitMs: server.listing_wait_ms,
    };
    return Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined)) as never;
  });
}
