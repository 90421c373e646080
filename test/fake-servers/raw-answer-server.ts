import { startFakeHttpServer, type RecordedRequest } from './http.ts';

/**
 * A provider that answers with exactly the bytes a test queues: a JSON body, or server-sent events, whatever the
 * path. For answers no well-behaved fake would send: mutated, truncated or retyped versions of real wire answers.
 */
export type RawAnswer =
  | { status?: number; json: string }
  /** Each event's lines as written (`event: …`, `data: …`); a blank line follows each. */
  | { status?: number; events: string[] };

export interface RawAnswerServer {
  origin: string;
  requests: RecordedRequest[];
  enqueue(...answers: RawAnswer[]): void;
  close(): Promise<void>;
}

export async function startRawAnswerServer(): Promise<RawAnswerServer> {
  const requests: RecordedRequest[] = [];
  const queue: RawAnswer[] = [];
  const { origin, close } = await startFakeHttpServer((request, response, body) => {
    requests.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers, body });
    const answer = queue.shift();
    if (!answer) {
      response.writeHead(500, { 'content-type': 'application/json' });
      return response.end('{"error":{"message":"nothing queued"}}');
    }
    if ('json' in answer) {
      response.writeHead(answer.status ?? 200, { 'content-type': 'application/json' });
      return response.end(answer.json);
    }
    response.writeHead(answer.status ?? 200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    response.end(answer.events.map((event) => `${event}\n\n`).join(''));
  });
  return { origin, requests, enqueue: (...answers) => void queue.push(...answers), close };
}
