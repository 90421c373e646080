import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/index.ts';
import { startFakeBedrockServer } from '../fake-servers/bedrock-server.ts';

/**
 * Bedrock's requests, signed by the AWS SDK, travel on the provider's transport like every other provider's:
 * `providers.bedrock.fetch` when given, else the pooled transport with its proxy from `HTTP_PROXY` / `HTTPS_PROXY`.
 * (The SDK's own handler spoke HTTP/2 on sockets of its own, past both.)
 */
const bedrock = await startFakeBedrockServer();
const proxied: string[] = [];
// A forward proxy: absolute-form targets are recorded and forwarded as they are.
const proxy = createServer((request, response) => {
  proxied.push(request.url!);
  const upstream = httpRequest(
    new URL(request.url!),
    { method: request.method, headers: request.headers },
    (answer) => {
      response.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(response);
    },
  );
  request.pipe(upstream);
});
await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
const proxyURL = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
afterAll(async () => {
  proxy.closeAllConnections();
  await Promise.all([bedrock.close(), new Promise((resolve) => proxy.close(resolve))]);
});

const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMIexampleSECRETkey' };
const hello = { model: 'bedrock/claude-sonnet-4-5', messages: [{ role: 'user' as const, content: 'Hello' }] };

describe("Bedrock on the provider's transport", () => {
  it('sends answers and streams through providers.bedrock.fetch, signed', async () => {
    const seen: string[] = [];
    const counting: typeof fetch = (input, init) => {
      seen.push(`${init?.method} ${String(input)}`);
      return fetch(input, init);
    };
    const gateway = createGateway({
      env: {},
      retry: { maxRetries: 0 },
      providers: { bedrock: { region: 'us-east-1', baseURL: bedrock.url, credentials, fetch: counting } },
    });
    const before = bedrock.requests.length;
    bedrock.enqueue({ text: 'Through your fetch' }, { text: 'Streamed through your fetch' });
    const answer = await gateway.createCompletion(hello);
    expect(answer.choices[0]!.message.content).toBe('Through your fetch');
    let text = '';
    for await (const chunk of await gateway.createCompletion({ ...hello, stream: true }))
      text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('Streamed through your fetch');

    const model = encodeURIComponent('global.anthropic.claude-sonnet-4-5-20250929-v1:0');
    expect(seen).toEqual([
      `POST ${bedrock.url}/model/${model}/converse`,
      `POST ${bedrock.url}/model/${model}/converse-stream`,
    ]);
    expect(bedrock.requests.length - before).toBe(seen.length);
    expect(bedrock.requests.at(-1)!.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\//);
  });

  it('goes through HTTP_PROXY from the gateway environment, unless NO_PROXY exempts the host', async () => {
    const through = (env: Record<string, string>) =>
      createGateway({
        env,
        retry: { maxRetries: 0 },
        providers: { bedrock: { region: 'us-east-1', baseURL: bedrock.url, credentials } },
      });
    proxied.length = 0;
    bedrock.enqueue({ text: 'Via the proxy' });
    const answer = await through({ HTTP_PROXY: proxyURL }).createCompletion(hello);
    expect(answer.choices[0]!.message.content).toBe('Via the proxy');
    expect(proxied).toEqual([expect.stringMatching(new RegExp(`^${bedrock.url}/model/[^/]+/converse$`))]);

    proxied.length = 0;
    bedrock.enqueue({ text: 'Straight there' });
    await through({ HTTP_PROXY: proxyURL, NO_PROXY: '127.0.0.1' }).createCompletion(hello);
    expect(proxied).toEqual([]);
  });

  it("bounds the wait for an answer with the provider's timeoutMs, through its fetch", async () => {
    const hanging: typeof fetch = (_input, init) =>
      new Promise((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal!.reason)));
    const gateway = createGateway({
      env: {},
      retry: { maxRetries: 0 },
      providers: { bedrock: { region: 'us-east-1', baseURL: bedrock.url, credentials, fetch: hanging, timeoutMs: 50 } },
    });
    const error = await gateway.createCompletion(hello).catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ status: 408, code: 'timeout', provider: 'bedrock' });
  });
});
