import { gzipSync } from 'node:zlib';
import { type RecordedRequest, startFakeHttpServer } from './http.ts';

/**
 * A provider that answers with exactly the bytes a test queues: a JSON body, or server-sent events, whatever the
 * path. For answers no well-behaved fake would send: mutated, truncated, retyped, slow, huge or compressed versions
 * of real wire answers.
 */
export type RawAnswer =
  | { status?: number; json: string; delayMs?: number; gzip?: boolean }
  /** Each event's lines as written (`event: …`, `data: …`), a blank line after each; a number pauses that long. */
  | { status?: number; events: Array<string | number>; delayMs?: number };

export interface RawAnswerServer {
  origin: string;
  requests: RecordedRequest[];
  enqueue(...answers: RawAnswer[]): void;
  /** Drops the answers still queued. */
  reset(): void;
  /** The most requests it was answering at once. */
  readonly maxInFlight: number;
  close(): Promise<void>;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startRawAnswerServer(): Promise<RawAnswerServer> {
  const requests: RecordedRequest[] = [];
  const queue: RawAnswer[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const { origin, close } = await startFakeHttpServer(async (request, response, body) => {
    requests.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers, body });
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    response.once('close', () => (inFlight -= 1));
    const answer = queue.shift();
    if (!answer) {
      response.writeHead(500, { 'content-type': 'application/json' });
      return response.end('{"error":{"message":"nothing queued"}}');
    }
    if (answer.delayMs) await pause(answer.delayMs);
    if (response.destroyed) return;
    if ('json' in answer) {
      const bytes = answer.gzip ? gzipSync(answer.json) : Buffer.from(answer.json);
      response.writeHead(answer.status ?? 200, {
        'content-type': 'application/json',
        ...(answer.gzip ? { 'content-encoding': 'gzip' } : {}),
      });
      return response.end(bytes);
    }
    response.writeHead(answer.status ?? 200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (const event of answer.events) {
      if (response.destroyed) return;
      if (typeof event === 'number') await pause(event);
      else response.write(`${event}\n\n`);
    }
    response.end();
  });
  return {
    origin,
    requests,
    enqueue: (...answers) => void queue.push(...answers),
    reset: () => void queue.splice(0),
    get maxInFlight() {
      return maxInFlight;
    },
    close,
  };
}
