import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Deployment } from '../../src/deployments/index.ts';

export interface RecordedDeploymentRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  ifNoneMatch: string | undefined;
  status: number;
}

/**
 * A fake deployment service: `GET /v1/deployments?agent_id=`, `GET|PUT /v1/deployments/{id}`, Bearer auth, strong
 * ETags with `If-None-Match` → 304. `failWith` makes every request answer that status; `close` stops it.
 */
export interface FakeDeploymentServer {
  url: string;
  apiKey: string;
  deployments: Map<string, unknown>;
  requests: RecordedDeploymentRequest[];
  /** Answer every request with this status (503 for an outage) until set back to `undefined`. */
  failWith: number | undefined;
  /** Send ETags (default true). */
  etags: boolean;
  /** Answers every request instead of the service (a hang, an endless body), until set back to `undefined`. */
  respondWith: ((request: IncomingMessage, response: ServerResponse) => void) | undefined;
  close(): Promise<void>;
}

export async function startFakeDeploymentServer(
  initial: Deployment[] = [],
  apiKey = 'sy-test-key-0123456789',
): Promise<FakeDeploymentServer> {
  const fake: FakeDeploymentServer = {
    url: '',
    apiKey,
    deployments: new Map(initial.map((deployment) => [deployment.id, deployment])),
    requests: [],
    failWith: undefined,
    etags: true,
    respondWith: undefined,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const url = new URL(request.url ?? '/', 'http://localhost');
    const record: RecordedDeploymentRequest = {
      method: request.method ?? '',
      path: `${url.pathname}${url.search}`,
      authorization: request.headers.authorization,
      ifNoneMatch: request.headers['if-none-match'] as string | undefined,
      status: 0,
    };
    fake.requests.push(record);
    const send = (status: number, body?: unknown) => {
      record.status = reply(response, status, body, fake.etags, record.ifNoneMatch);
    };

    if (fake.respondWith) return fake.respondWith(request, response);
    if (fake.failWith !== undefined)
      return send(fake.failWith, { error: { message: 'Service unavailable', type: 'api_error' } });
    if (request.headers.authorization !== `Bearer ${fake.apiKey}`) {
      // Echoes the header, as careless services do, to check that the store never repeats the key.
      return send(401, {
        error: { message: `Invalid credentials: ${request.headers.authorization}`, type: 'authentication_error' },
      });
    }
    if (url.pathname === '/v1/deployments' && request.method === 'GET') {
      const agent = url.searchParams.get('agent_id');
      const data = [...fake.deployments.values()].filter((d) => agent === null || (d as Deployment).agent_id === agent);
      return send(200, { object: 'list', data });
    }
    const match = /^\/v1\/deployments\/([^/]+)$/.exec(url.pathname);
    if (!match) return send(404, { error: { message: `Unknown path ${url.pathname}` } });
    const id = decodeURIComponent(match[1]!);
    if (request.method === 'GET') {
      const deployment = fake.deployments.get(id);
      return deployment
        ? send(200, deployment)
        : send(404, { error: { message: `No deployment ${id}`, code: 'not_found' } });
    }
    if (request.method === 'PUT') {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Deployment;
      if (body.id !== id) return send(400, { error: { message: 'id mismatch' } });
      const existing = fake.deployments.get(id);
      if (existing)
        return JSON.stringify(existing) === JSON.stringify(body)
          ? send(200, body)
          : send(409, { error: { message: 'immutable' } });
      fake.deployments.set(id, body);
      return send(201, body);
    }
    return send(405, { error: { message: 'Method not allowed' } });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}

/** Sends the answer (a 304 when the ETag matches); returns the status sent. */
function reply(
  response: ServerResponse,
  status: number,
  body: unknown,
  etags: boolean,
  ifNoneMatch: string | undefined,
): number {
  const text = body === undefined ? '' : JSON.stringify(body);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (status === 200 && etags) {
    headers.etag = `"${createHash('sha256').update(text).digest('hex').slice(0, 16)}"`;
    if (ifNoneMatch === headers.etag) {
      response.writeHead(304, { etag: headers.etag });
      response.end();
      return 304;
    }
  }
  response.writeHead(status, headers);
  response.end(text);
  return status;
}
