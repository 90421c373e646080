import { describe, expect, it } from 'vitest';
import type { KeyGrant } from '../../src/access/scopes.ts';
import { createGateway } from '../../src/index.ts';
import {
  type CallPage,
  type CallRecord,
  type CallStore,
  type DailyCostQuery,
  type ListCallsQuery,
  MemorySink,
  type RecordSink,
} from '../../src/records/index.ts';
import { ApiKeyStore, createSwitchyardHandler, defaultHostPolicy } from '../../src/server/index.ts';

/**
 * `GET /v1/calls` over a call store of the user's own that knows nothing of a reader's scope (it takes a query only,
 * as the interface was before `{ scope }`): a tenant's key still lists only its tenant's calls. The page is checked
 * against the scope after the store answers, so a store that ignores the scope fails closed.
 */
class QueryOnlyStore implements CallStore, RecordSink {
  readonly #inner = new MemorySink();
  write(records: CallRecord[]) {
    return this.#inner.write(records);
  }
  list(query?: ListCallsQuery): Promise<CallPage> {
    return this.#inner.list(query);
  }
  workflow(traceId: string) {
    return this.#inner.workflow(traceId);
  }
  dailyCost(query?: DailyCostQuery) {
    return this.#inner.dailyCost(query);
  }
  agents() {
    return this.#inner.agents();
  }
}

const reader: KeyGrant = {
  scopes: ['chat', 'calls:read'],
  allowed_agents: null,
  allowed_models: null,
  expires_at: null,
};

describe('a custom call store that ignores the scope', () => {
  it("never shows one tenant another's calls", async () => {
    const store = new QueryOnlyStore();
    const gateway = createGateway({ mock: true, records: { sinks: [store] } });
    const keys = new ApiKeyStore(':memory:');
    const handler = createSwitchyardHandler({
      gateway,
      keys,
      mock: true,
      hostPolicy: defaultHostPolicy('127.0.0.1', 8787),
    });
    const send = (key: string, path: string, body?: unknown) =>
      handler(
        new Request(`http://127.0.0.1:8787${path}`, {
          method: body === undefined ? 'GET' : 'POST',
          headers: { host: '127.0.0.1:8787', authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        }),
      );
    const admin = await keys.create('admin');
    const alpha = await keys.create('alpha', { grant: reader, parentId: admin.info.id });
    const beta = await keys.create('beta', { grant: reader, parentId: admin.info.id });
    for (const [key, agent] of [
      [alpha.key, 'alpha-agent'],
      [beta.key, 'beta-agent'],
    ] as const) {
      const answered = await send(key, '/v1/chat/completions', {
        model: 'gpt-4o-latest',
        messages: [{ role: 'user', content: 'hi' }],
        metadata: { agent_id: agent },
      });
      expect(answered.status, await answered.clone().text()).toBe(200);
    }
    const listed = await send(alpha.key, '/v1/calls');
    expect(listed.status).toBe(200);
    const { data } = (await listed.json()) as { data: Array<{ agent_id: string }> };
    expect(data.map((record) => record.agent_id)).toEqual(['alpha-agent']);
    await gateway.close();
  });
});
