import { readableCallList, requireEveryCall, withinScope } from '../../access/reads.ts';
import type { Gateway } from '../../gateway.ts';
import { ATTRIBUTION_FIELDS, DIALECTS, type Dialect } from '../../records/call-record.ts';
import type { CallTextPage, ListCallsQuery } from '../../records/call-store.ts';
import { StoredCalls } from '../../records/stored-calls.ts';
import type { Reply } from '../exchange.ts';
import { HttpError, json } from '../responses.ts';
import type { Route } from '../router.ts';

/**
 * The call-record queries of `gateway.calls`. Each first flushes the record queue, so a client that has just had
 * an answer finds its call (records are otherwise written in batches, up to a second later).
 */
export function callRoutes(gateway: Gateway): Route[] {
  return [
    {
      method: 'GET',
      path: /^\/v1\/calls$/,
      auth: 'key',
      async handle({ request, access }) {
        const query: ListCallsQuery = {};
        for (const name of [...ATTRIBUTION_FIELDS, 'since', 'until', 'cursor'] as const) {
          const value = request.query.get(name);
          if (value !== null) query[name] = value;
        }
        const dialect = request.query.get('dialect');
        if (dialect !== null) {
          if (!DIALECTS.includes(dialect as Dialect)) {
            throw new HttpError(400, `"dialect" must be one of ${DIALECTS.join(', ')}.`, {
              param: 'dialect',
              code: 'invalid_parameter',
            });
          }
          query.dialect = dialect as Dialect;
        }
        const limit = integerParam(request.query, 'limit');
        if (limit !== undefined) query.limit = limit;
        const readable = access ? await readableCallList(access.key, query, access) : { query, scope: {} };
        await gateway.flush();
        const store = gateway.calls;
        const options = { scope: readable.scope };
        // A store of ours applies the scope in its query; another's page is checked here as well, so that a store
        // that ignores the scope shows nothing it should not.
        if (store instanceof StoredCalls) return streamedPage(await store.listJson(readable.query, options));
        const page = await store.list(readable.query, options);
        const data = page.data.filter((record) => withinScope(record, readable.scope));
        return json({ object: 'list', ...page, data });
      },
    },
    {
      method: 'GET',
      path: /^\/v1\/workflows\/([^/]+)$/,
      auth: 'key',
      scope: 'calls:read',
      async handle({ params: [traceId = ''], access }) {
        requireEveryCall(access!.key);
        await gateway.flush();
        const workflow = await gateway.calls.workflow(traceId);
        if (!workflow)
          throw new HttpError(404, `No call has the trace_id "${traceId}".`, { code: 'workflow_not_found' });
        return json(workflow);
      },
    },
    {
      method: 'GET',
      path: /^\/v1\/costs\/daily$/,
      auth: 'key',
      scope: 'calls:read',
      async handle({ request, access }) {
        requireEveryCall(access!.key);
        const workflowName = request.query.get('workflow_name');
        const days = integerParam(request.query, 'days');
        await gateway.flush();
        const data = await gateway.calls.dailyCost({
          ...(workflowName === null ? {} : { workflow_name: workflowName }),
          ...(days === undefined ? {} : { days }),
        });
        return json({ object: 'list', data });
      },
    },
    {
      method: 'GET',
      path: /^\/v1\/agents$/,
      auth: 'key',
      scope: 'calls:read',
      async handle({ access }) {
        requireEveryCall(access!.key);
        await gateway.flush();
        return json({ object: 'list', data: await gateway.calls.agents() });
      },
    },
  ];
}

/**
 * A page as `{ object, data, next_cursor }`, streamed: each record's stored JSON as it is read, the next written
 * once the client has taken the last (the adapter waits for the socket to drain). A client that never reads holds
 * a batch of records and one of its key's request slots, never a page; no record is parsed.
 */
function streamedPage(page: CallTextPage): Reply {
  async function* body(): AsyncGenerator<string | Uint8Array> {
    yield '{"object":"list","data":[';
    let first = true;
    for await (const record of page.records) {
      if (!first) yield ',';
      yield record;
      first = false;
    }
    yield `],"next_cursor":${JSON.stringify(page.next_cursor)}}`;
  }
  return { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: body() };
}

function integerParam(query: URLSearchParams, name: string): number | undefined {
  const value = query.get(name);
  if (value === null) return undefined;
  if (!/^\d{1,6}$/.test(value) || Number(value) < 1)
    throw new HttpError(400, `"${name}" must be a whole number of at least 1.`, {
      param: name,
      code: 'invalid_parameter',
    });
  return Number(value);
}
