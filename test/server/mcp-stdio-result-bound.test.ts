import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { McpUpstream } from '../../src/server/mcp-gateway/upstream.ts';

/**
 * A stdio server's answer is bounded by the server's `max_result_bytes`, as an HTTP server's is: the SDK's stdio
 * reader stopped at its own 10 MB, closing the transport and ending the process, so a larger bound could never be
 * reached (and every other call on that process failed with it).
 */
const STDIO_SERVER = join(import.meta.dirname, '../fixtures/mcp/stdio-server.ts');

describe('a stdio upstream answering past 10 MB', () => {
  it('is answered within a bound of 16 MB, and past it is too_large', async () => {
    const server = new McpUpstream({
      name: 'files',
      command: process.execPath,
      args: [STDIO_SERVER],
      maxResultBytes: 16 * 1024 * 1024,
      timeoutMs: 30_000,
    });
    try {
      const result = await server.call('big', { bytes: 11 * 1024 * 1024 });
      expect((result.content as Array<{ text: string }>)[0]!.text.length).toBe(11 * 1024 * 1024);
      const error = await server.call('big', { bytes: 17 * 1024 * 1024 }).catch((thrown: unknown) => thrown);
      expect(error).toMatchObject({ outcome: 'too_large' });
    } finally {
      await server.close();
    }
  }, 60_000);
});
