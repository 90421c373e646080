import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startFakeAnthropicServer } from '../fake-servers/anthropic-server.ts';
import { startFakeGeminiServer } from '../fake-servers/gemini-server.ts';
import { startFakeOpenAIServer } from '../fake-servers/openai-server.ts';
import { type FakeProviders, SCRIPT } from './scenario.ts';

/** The text of every message of an OpenAI-shaped body, to find the scenario's script marks in. */
const textOf = (body: Record<string, any>) => JSON.stringify(body.messages ?? []);

/**
 * The fake OpenAI, Anthropic and Gemini servers the scenario calls, scripted by marks in the prompt (`SCRIPT`): the
 * scenario runs inside another runtime, so it cannot reach into the fakes as a test in this process would.
 */
export async function startScenarioFakes(): Promise<{ fakes: FakeProviders; close: () => Promise<void> }> {
  const [openai, anthropic, gemini] = await Promise.all([
    startFakeOpenAIServer(),
    startFakeAnthropicServer(),
    startFakeGeminiServer(),
  ]);
  const answerJson = /\[\[answer-json:(.*?)\]\]/;
  openai.respondWith = (body) => {
    const text = textOf(body);
    if (text.includes(SCRIPT.failOpenAI))
      return { error: { status: 503, message: 'overloaded', type: 'server_error' } };
    const json = answerJson.exec(text.replaceAll('\\"', '"'))?.[1];
    return json === undefined ? { content: `Hello from fake ${body.model}` } : { content: json };
  };
  return {
    fakes: { openai: openai.url, anthropic: anthropic.url, gemini: gemini.url },
    close: async () => {
      await Promise.all([openai.close(), anthropic.close(), gemini.close()]);
    },
  };
}

/**
 * A loopback server for a browser page: `/` the page, `/scenario.js` the bundle, `/fake/<provider>/…` passed on to
 * that fake provider (the same origin, so the page needs no CORS from the fakes), and `POST /result` the rows.
 */
export async function startPageServer(
  fakes: FakeProviders,
  bundle: string,
  onResult: (rows: unknown) => void,
): Promise<{ origin: string; close: () => Promise<void> }> {
  const upstream = new Map(Object.entries(fakes).map(([name, url]) => [name, new URL(url)]));
  const server = createServer(async (request, response) => {
    const path = request.url ?? '/';
    if (path === '/') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return response.end('<!doctype html><meta charset="utf-8"><script type="module" src="/scenario.js"></script>');
    }
    if (path === '/scenario.js') {
      response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' });
      return response.end(bundle);
    }
    if (path === '/result' && request.method === 'POST') {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      response.writeHead(204).end();
      return onResult(JSON.parse(Buffer.concat(chunks).toString('utf8')));
    }
    const proxied = /^\/fake\/(\w+)(\/.*)?$/.exec(path);
    const target = proxied && upstream.get(proxied[1]!);
    if (!target) return response.writeHead(404).end();
    const forward = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: request.method,
        path: proxied![2] ?? '/',
        headers: { ...request.headers, host: target.host },
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    forward.on('error', () => response.destroy());
    request.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
