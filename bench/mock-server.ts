/**
 * A fast fake provider for the benchmark, run in its own process (`fork`) so its CPU is not billed to the client.
 * Every answer is precomputed: a fixed chat completion, a fixed SSE stream, and one fixed Anthropic and Gemini
 * reply for the first-call measurement. Keep-alive, no request parsing beyond "does the body ask for a stream".
 *
 * Started by bench/run.ts; it reports `{ port }` over IPC and exits when the parent disconnects.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { anthropicMessage, completion, geminiResponse, streamHead, streamTail } from './payloads.ts';

function sendJSON(response: ServerResponse, body: Buffer): void {
  response.writeHead(200, [
    'content-type',
    'application/json',
    'content-length',
    String(body.length),
    'x-request-id',
    'req_bench',
  ]);
  response.end(body);
}

function handle(request: IncomingMessage, response: ServerResponse, body: string): void {
  const url = request.url ?? '';
  if (url.endsWith('/chat/completions')) {
    if (!body.includes('"stream":true')) {
      sendJSON(response, completion);
      return;
    }
    response.writeHead(200, [
      'content-type',
      'text/event-stream',
      'cache-control',
      'no-cache',
      'x-request-id',
      'req_bench',
    ]);
    response.write(streamHead);
    setImmediate(() => response.end(streamTail));
    return;
  }
  if (url === '/v1/messages') {
    sendJSON(response, anthropicMessage);
    return;
  }
  if (url.includes(':generateContent')) {
    sendJSON(response, geminiResponse);
    return;
  }
  response.writeHead(404, ['content-type', 'application/json']);
  response.end('{"error":{"message":"not found","type":"invalid_request_error"}}');
}

const server = createServer({ keepAlive: true, keepAliveTimeout: 60_000, requestTimeout: 0 }, (request, response) => {
  const parts: Buffer[] = [];
  request.on('data', (part: Buffer) => parts.push(part));
  request.on('end', () =>
    handle(
      request,
      response,
      parts.length === 1 ? parts[0]!.toString('latin1') : Buffer.concat(parts).toString('latin1'),
    ),
  );
});
server.keepAliveTimeout = 60_000;
server.maxRequestsPerSocket = 0;

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  if (process.send) process.send({ port });
  else console.log(`mock provider on http://127.0.0.1:${port}`);
});
process.on('disconnect', () => process.exit(0));
