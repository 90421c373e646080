import type { CallRecord, RecordSink } from '../../src/records/index.ts';
import type { KeyGrant } from '../../src/server/key-scopes.ts';
import { makeRecord } from '../records/make-record.ts';
import type { TestServer } from '../server/start-test-server.ts';

/**
 * Large call records for the tenancy suites, written straight into the server's own store (its SQLite file or
 * PostgreSQL database) as `serve` would have recorded them: a record of the size a 4 MB request leaves behind
 * costs seconds to make through HTTP, and the suites need dozens.
 */

/** A key of a tenant with these scopes (any agent and model unless `grant` says). */
export async function tenantKey(
  test: TestServer,
  name: string,
  grant: Partial<KeyGrant> & Pick<KeyGrant, 'scopes'>,
): Promise<{ key: string; id: string }> {
  const { key, info } = await test.server.keys.create(name, {
    grant: { allowed_agents: null, allowed_models: null, expires_at: null, ...grant },
  });
  return { key, id: info.id };
}

/**
 * A prompt of `messages` user messages of ~220 characters each (5,000 make ~1.1 MB of JSON): many small values,
 * as a long conversation has, which is what makes a record slow to parse.
 */
export function longConversation(messages: number, tag = ''): Array<{ role: 'user'; content: string }> {
  return Array.from({ length: messages }, (_, index) => ({
    role: 'user' as const,
    content: `${tag}message ${index} ${'lorem ipsum '.repeat(17)}`,
  }));
}

/**
 * Writes `count` records of calls made with the key `keyId` for `agent`, one second apart ending now, each holding a
 * conversation of `messages` messages; resolves with their ids, newest first.
 */
export async function seedLargeCalls(
  test: TestServer,
  options: { count: number; keyId: string; agent: string; messages?: number },
): Promise<string[]> {
  const sink = test.server.gateway.calls as unknown as RecordSink;
  const start = Date.now() - options.count * 1000;
  const records: CallRecord[] = [];
  for (let index = 0; index < options.count; index++)
    records.push(
      makeRecord({
        createdAt: start + index * 1000,
        agent_id: options.agent,
        trace_id: null,
        workflow_name: null,
        metadata: { api_key_id: options.keyId },
        input_messages: longConversation(options.messages ?? 5_000, `${index} `),
      }),
    );
  for (let at = 0; at < records.length; at += 5) await sink.write(records.slice(at, at + 5));
  return records.map((record) => record.id).reverse();
}

/** The ids of the records in a page's JSON text, in order, without parsing the page (it may be large). */
export function idsInPage(text: string): string[] {
  return [...text.matchAll(/\{"id":"([0-9a-f-]{36})","dialect"/g)].map((match) => match[1]!);
}

/** The `next_cursor` of a page's JSON text (the last member of the list object). */
export function cursorOfPage(text: string): string | null {
  const match = /"next_cursor":(null|"[^"]*")\}\s*$/.exec(text);
  if (!match) throw new Error(`not a page of calls: …${text.slice(-200)}`);
  return JSON.parse(match[1]!) as string | null;
}
