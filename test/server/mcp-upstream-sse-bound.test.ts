import { afterAll, describe, expect, it } from 'vitest';
import { McpUpstream } from '../../src/server/mcp-gateway/upstream.ts';
import { McpUpstreamError } from '../../src/server/mcp-gateway/upstream-errors.ts';
import { startMcpUpstream } from '../fake-servers/mcp-upstream.ts';

/**
 * An upstream answering a tool call as a server-sent event stream (the Streamable HTTP default) past the size bound
 * is `too_large`, at once: the SDK reads such a stream apart from the request, so a stream cut by the bound used to
 * leave the call waiting for its deadline, then recorded as a `timeout`, blaming the wrong thing.
 */
const upstream = await startMcpUpstream({ sse: true, hugeBytes: 200_000 });
afterAll(() => upstream.close());

describe('an upstream answering as server-sent events', () => {
  it('a result past the bound is too_large (not a timeout at the deadline); a small one still passes', async () => {
    const gateway = new McpUpstream({ name: 'streams', url: upstream.url, maxResultBytes: 20_000, timeoutMs: 8_000 });
    try {
      const small = await gateway.call('web', { query: 'rails' });
      expect(small.content).toEqual([{ type: 'text', text: 'results for rails' }]);
      const failed = await gateway.call('huge', {}).catch((error: unknown) => error);
      expect(failed).toBeInstanceOf(McpUpstreamError);
      expect(failed).toMatchObject({ outcome: 'too_large' });
      expect((failed as Error).message).toBe('The MCP server "streams" answered more than 20000 bytes.');
      // The client is still usable for the next call.
      expect((await gateway.call('web', { query: 'again' })).content).toEqual([
        { type: 'text', text: 'results for again' },
      ]);
    } finally {
      await gateway.close();
    }
  });
});
