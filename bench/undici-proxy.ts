/**
 * The ceiling for any Node gateway that makes a real upstream call: `node:http` in, `undici.request` out, the
 * body passed through untouched (no SDK, no parsing, no auth, no records). Next to the direct mock it shows what two
 * HTTP exchanges per request cost on one core, whoever writes the gateway.
 *
 *   node bench/undici-proxy.ts <port>      (OPENAI_BASE_URL from the environment)
 */
import { createServer } from 'node:http';
import { Agent } from 'undici';

const upstream = `${process.env.OPENAI_BASE_URL}/chat/completions`;
const agent = new Agent({ keepAliveTimeout: 60_000, connections: 128 });

const server = createServer({ keepAliveTimeout: 60_000 }, (request, response) => {
  const parts: Buffer[] = [];
  request.on('data', (part: Buffer) => parts.push(part));
  request.on('end', async () => {
    try {
      const answer = await agent.request({
        origin: new URL(upstream).origin,
        path: new URL(upstream).pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${process.env.OPENAI_API_KEY}` },
        body: Buffer.concat(parts),
      });
      response.writeHead(answer.statusCode, {
        'content-type': String(answer.headers['content-type'] ?? 'application/json'),
      });
      for await (const part of answer.body) response.write(part);
      response.end();
    } catch (error) {
      response.writeHead(502, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: String(error) } }));
    }
  });
});
server.listen(Number(process.argv[2]), '127.0.0.1');
