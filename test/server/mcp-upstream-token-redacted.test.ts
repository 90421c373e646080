import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpUpstream } from '../../src/server/mcp-gateway/upstream.ts';
import { startFakeHttpServer } from '../fake-servers/http.ts';

/**
 * An upstream whose refusal quotes the gateway's own token (`token <it> expired`): the token never reaches the caller,
 * the log or the record. Only the header's whole value (`Bearer <token>`) was cut before, not the token alone.
 */
const TOKEN = 'ghp_tok3nOfTheGatewayItself0123456789';
let upstream: { origin: string; close(): Promise<void> };
beforeAll(async () => {
  upstream = await startFakeHttpServer((_request, response) => {
    response.writeHead(401, { 'content-type': 'text/plain' });
    response.end(`token ${TOKEN} expired; basic user:s3cretPassw0rd refused`);
  });
});
afterAll(() => upstream.close());

describe('an upstream error quoting the gateway’s credential', () => {
  for (const header of [`Bearer ${TOKEN}`, `token ${TOKEN}`]) {
    it(`shows no part of it (${header.split(' ')[0]})`, async () => {
      const server = new McpUpstream({
        name: 'gh',
        url: `${upstream.origin}/mcp`,
        headers: { authorization: header },
        timeoutMs: 5_000,
      });
      try {
        const error = await server.call('search', {}).catch((thrown: unknown) => thrown);
        expect(error).toBeInstanceOf(Error);
        expect((error as Error).message).not.toContain(TOKEN);
      } finally {
        await server.close();
      }
    });
  }
});
