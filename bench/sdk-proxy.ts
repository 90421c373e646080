/**
 * The smallest honest gateway built on the official SDK, as a yardstick for `switchyard serve`: a `node:http`
 * server that parses the body, calls `openai.chat.completions.create` with it (on Switchyard's pooled transport,
 * the same one serve uses) and writes the answer or the SSE stream back. No auth, validation, routing, records or
 * logs: what serve costs beyond this is what Switchyard itself adds.
 *
 *   node bench/sdk-proxy.ts <port>      (OPENAI_BASE_URL and OPENAI_API_KEY from the environment)
 */
import { createServer } from 'node:http';
import OpenAI from 'openai';
import { createPooledFetch } from '../src/internal/http-transport.ts';

const client = new OpenAI({ maxRetries: 0, fetch: createPooledFetch() });

const server = createServer({ keepAliveTimeout: 60_000 }, (request, response) => {
  const parts: Buffer[] = [];
  request.on('data', (part: Buffer) => parts.push(part));
  request.on('end', async () => {
    try {
      const body = JSON.parse(Buffer.concat(parts).toString('utf8')) as OpenAI.ChatCompletionCreateParams;
      if (body.stream) {
        const stream = await client.chat.completions.create(body);
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        for await (const chunk of stream) response.write(`data: ${JSON.stringify(chunk)}\n\n`);
        response.end('data: [DONE]\n\n');
      } else {
        const text = JSON.stringify(await client.chat.completions.create({ ...body, stream: false }));
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
        response.end(text);
      }
    } catch (error) {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: String(error) } }));
    }
  });
});
server.listen(Number(process.argv[2]), '127.0.0.1');
process.once('SIGINT', () => process.exit(0));
