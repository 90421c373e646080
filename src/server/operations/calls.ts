import type * as Zod from 'zod';
import { madeBy, mayRead, readScope } from '../../access/reads.ts';
import { READS_CALLS } from '../../access/scopes.ts';
import type { Gateway } from '../../gateway.ts';
import { firstIssueError } from '../../internal/first-issue.ts';
import { lazyRequire } from '../../internal/lazy-require.ts';
import type { CallQuery, CallQueryResult } from '../../records/call-query.ts';
import { callQuerySchemas } from '../../records/call-query-schema.ts';
import type { CallRecord } from '../../records/call-record.ts';
import type { KeyAccess } from '../key-access.ts';
import { defineOperation } from '../operation.ts';
import { HttpError } from '../responses.ts';

/** A query is a few filters and names: a body past this is not one. */
const MAX_QUERY_BYTES = 64 * 1024;
const loadZod = lazyRequire<typeof Zod>('zod');

/** `POST /v1/calls/query`, `query_completions`: the structured call query over the calls the key reads. */
export const queryCompletions = defineOperation({
  name: 'query_completions',
  description:
    'Queries the recorded calls (completions) this key may read: filters (agent, workflow, trace, model, ' +
    'provider, status, time, cost, latency, metadata), group_by with count/sum/avg/min/max/p50/p90/p99, ' +
    'order_by and limit. Without group_by or aggregates, one row per call (its columns, not its contents: ' +
    'get_completion has those), newest first.',
  scope: READS_CALLS,
  input: () => callQuerySchemas().query,
  invalid: (error) => firstIssueError('Call query', error, 'the query'),
  hints: { readOnlyHint: true },
  handle: (query, { gateway, access }) => queryCalls(gateway, query as CallQuery, access),
  http: { method: 'POST', path: /^\/v1\/calls\/query$/, body: MAX_QUERY_BYTES, input: ({ body }) => body ?? {} },
});

let getInput: ReturnType<typeof buildGetInput> | undefined;
const buildGetInput = () => {
  const { z } = loadZod();
  return z
    .object({ id: z.string().min(1).max(200).describe('The call id: a row id from query_completions.') })
    .strict();
};

/** `GET /v1/calls/{id}`, `get_completion`: one call, answered as missing when the key does not read it. */
export const getCompletion = defineOperation({
  name: 'get_completion',
  description:
    'One recorded call by id, with its messages, output, attempts, usage, cost, latency, metadata and errors, ' +
    'of the calls this key reads (as query_completions).',
  scope: READS_CALLS,
  input: () => (getInput ??= buildGetInput()),
  hints: { readOnlyHint: true },
  async handle({ id }, { gateway, access }) {
    const record = await readCall(gateway, id, access);
    if (!record) throw new HttpError(404, `No call has the id "${id}".`, { code: 'call_not_found' });
    return record;
  },
  http: { method: 'GET', path: /^\/v1\/calls\/([^/]+)$/, input: ({ params }) => ({ id: params[0] }) },
});

/** The query over the calls `access` reads. */
export async function queryCalls(gateway: Gateway, query: CallQuery, access: KeyAccess): Promise<CallQueryResult> {
  const scope = await readScope(access.key, access);
  const store = gateway.calls;
  if (!store.queryCalls)
    throw new HttpError(501, 'The call store of this server does not answer call queries.', { code: 'not_supported' });
  // Records are written in batches: flushed, a call just answered is in the result.
  await gateway.flush();
  return store.queryCalls(query, { scope });
}

/** One call, or `null` when it does not exist or `access` may not read it (the same answer: no probing ids). */
async function readCall(gateway: Gateway, id: string, access: KeyAccess): Promise<CallRecord | null> {
  const store = gateway.calls;
  if (!store.get) throw new HttpError(501, 'The call store of this server does not look calls up by id.');
  await gateway.flush();
  const record = await store.get(id);
  return record && (await mayRead(access.key, madeBy(record), access)) ? record : null;
}
