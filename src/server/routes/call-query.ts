import type { Gateway } from '../../gateway.ts';
import type { CallQuery, CallQueryResult } from '../../records/call-query.ts';
import type { CallRecord } from '../../records/call-record.ts';
import type { KeyAccess } from '../key-access.ts';
import { readJsonBody } from '../read-json-body.ts';
import { HttpError, json } from '../responses.ts';
import type { Route } from '../router.ts';

/** A query is a few filters and names: a body past this is not one. */
const MAX_QUERY_BYTES = 64 * 1024;

/**
 * `POST /v1/calls/query`, the structured call query, and `GET /v1/calls/{id}`, one call: each over only the calls
 * the key reads (`KeyAccess.callQueryScope`, `readableCall`). The MCP tools `query_completions` and `get_completion`
 * call the same two functions.
 */
export function callQueryRoutes(gateway: Gateway): Route[] {
  return [
    {
      method: 'POST',
      path: /^\/v1\/calls\/query$/,
      auth: 'key',
      async handle({ request, access }) {
        const body = await readJsonBody(request, MAX_QUERY_BYTES);
        return json(await queryCalls(gateway, body as CallQuery, access));
      },
    },
    {
      method: 'GET',
      path: /^\/v1\/calls\/([^/]+)$/,
      auth: 'key',
      async handle({ params: [id = ''], access }) {
        const record = await readCall(gateway, id, access);
        if (!record) throw new HttpError(404, `No call has the id "${id}".`, { code: 'call_not_found' });
        return json(record);
      },
    },
  ];
}

/** The query over the calls `access` reads (every call in-process, without a key). */
export async function queryCalls(
  gateway: Gateway,
  query: CallQuery,
  access: KeyAccess | undefined,
): Promise<CallQueryResult> {
  const scope = access ? await access.callQueryScope() : {};
  const store = gateway.calls;
  if (!store.queryCalls)
    throw new HttpError(501, 'The call store of this server does not answer call queries.', { code: 'not_supported' });
  // Records are written in batches: flushed, a call just answered is in the result.
  await gateway.flush();
  return store.queryCalls(query, { scope });
}

/** One call, or `null` when it does not exist or `access` may not read it (the same answer: no probing ids). */
export async function readCall(
  gateway: Gateway,
  id: string,
  access: KeyAccess | undefined,
): Promise<CallRecord | null> {
  const store = gateway.calls;
  if (!store.get) throw new HttpError(501, 'The call store of this server does not look calls up by id.');
  await gateway.flush();
  const record = await store.get(id);
  return access ? access.readableCall(record) : record;
}
