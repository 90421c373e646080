import OpenAI, { type APIError } from 'openai';
import { expect } from 'vitest';
import type { RecordingWait } from '../helpers/recording-wait.ts';
import type { Answered, Broken, Failed, FaultRow } from './fault-rows.ts';
import { chain, checkBrokenRecord, requestOf, type SurfaceRun } from './fault-surface-library.ts';
import { type Backends, bounded, providerSettings, rejection } from './harness.ts';
import { isOpenAIErrorBody, readSSE, type ServeRig, serveGatewayOptions, startServeRig } from './serve-harness.ts';

/**
 * The fault matrix's rows (fault-rows.ts) through `switchyard serve`, as an HTTP client sees them: raw `fetch` for
 * the exact status, the OpenAI error body and the SSE bytes, then the `openai` SDK (no retries of its own) for its
 * typed error class. Every call the gateway ran carries `x-switchyard-call-id`; its attempt chain is read from its
 * record, and every id is checked against the SQLite file at the end (`callIds`).
 */
export const CALL_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The SDK's class for each status the gateway answers with. */
function sdkClass(status: number): abstract new (...args: never[]) => APIError {
  const classes: Record<number, abstract new (...args: never[]) => APIError> = {
    400: OpenAI.BadRequestError,
    401: OpenAI.AuthenticationError,
    404: OpenAI.NotFoundError,
    429: OpenAI.RateLimitError,
  };
  return classes[status] ?? (status >= 500 ? OpenAI.InternalServerError : OpenAI.APIError);
}

export interface ServeSurface {
  /** The server the rows without settings of their own run on. */
  rig: ServeRig;
  /** Every call id the default server answered with. */
  callIds: Set<string>;
  /** Runs one row; `arm` enqueues its faults, before each call. */
  run(row: FaultRow, arm: () => void): Promise<SurfaceRun>;
  stop(): Promise<void>;
}

export async function startServeSurface(backends: Backends, wait: RecordingWait): Promise<ServeSurface> {
  const retry = { initialDelayMs: 5, maxDelayMs: 2_000, wait: wait.wait };
  const rig = await startServeRig(backends, { gateway: serveGatewayOptions(backends, { retry }) });
  const callIds = new Set<string>();
  const rigFor = async (row: FaultRow): Promise<ServeRig> => {
    if (!row.gateway) return rig;
    const { timeoutMs, maxRetries, withoutCredentials } = row.gateway;
    const { [row.provider]: _left, ...others } = providerSettings(backends);
    return startServeRig(backends, {
      gateway: serveGatewayOptions(backends, {
        ...(timeoutMs ? { timeoutMs } : {}),
        ...(withoutCredentials ? { providers: others } : {}),
        retry: { ...retry, ...(maxRetries ? { maxRetries } : {}) },
      }),
    });
  };
  return {
    rig,
    callIds,
    run: async (row, arm) => {
      const server = await rigFor(row);
      const callIdOf = (headers: Headers | undefined) => {
        const id = headers?.get('x-switchyard-call-id') ?? '';
        expect(id, 'x-switchyard-call-id').toMatch(CALL_ID);
        if (server === rig) callIds.add(id);
        return id;
      };
      try {
        const { expected } = row;
        if (expected.kind === 'error') return await failed(server, row, expected, callIdOf, arm);
        if (expected.kind === 'broken stream') return await broken(server, row, expected, callIdOf, arm);
        return await answered(server, row, expected, callIdOf, arm);
      } finally {
        if (server !== rig) await server.stop();
      }
    },
    stop: () => rig.stop(),
  };
}

type CallIdOf = (headers: Headers | undefined) => string;

/** The attempts of a call, from its record. */
async function recorded(server: ServeRig, callId: string) {
  await server.server.gateway.flush();
  const record = await server.server.gateway.calls.get?.(callId);
  expect(record, `the record of ${callId}`).toBeTruthy();
  return record!;
}

async function answered(server: ServeRig, row: FaultRow, expected: Answered, callIdOf: CallIdOf, arm: () => void) {
  const request = requestOf(row);
  arm();
  if (row.stream) {
    const response = await bounded(server.post('/v1/chat/completions', request));
    expect(response.status).toBe(200);
    const callId = callIdOf(response.headers);
    const { data: events } = await readSSE(response);
    expect(events.at(-1)).toBe('[DONE]');
    expect(textOf(events.slice(0, -1))).toBe(expected.content);
    const record = await recorded(server, callId);
    expect(record.provider).toBe(expected.provider ?? row.provider);
    return runOf(record.attempts);
  }
  const { data, response } = await bounded(
    server
      .openai()
      .chat.completions.create(request as never)
      .withResponse(),
  );
  expect(response.status).toBe(200);
  const facts = (data as unknown as { switchyard: FactsOverHttp }).switchyard;
  expect(callIdOf(response.headers)).toBe(facts.call_id);
  const content = data.choices[0]!.message.content;
  expect(content).toBe(expected.content);
  expect(facts.provider).toBe(expected.provider ?? row.provider);
  if (expected.parsed !== undefined) expect(JSON.parse(content ?? '')).toEqual(expected.parsed);
  if (expected.warning) expect(facts.warnings).toContainEqual(expect.objectContaining(expected.warning));
  return runOf(facts.attempts);
}

interface FactsOverHttp {
  call_id: string;
  provider: string;
  warnings: unknown[];
  attempts: Array<{ provider: string; status?: number; outcome: string }>;
}

/**
 * An error, both ways: raw fetch (exact status, exact OpenAI error body, call id), then the SDK with the same
 * faults again (its typed error class, status, code, call id). The attempts are those of the first call's record.
 */
async function failed(server: ServeRig, row: FaultRow, expected: Failed, callIdOf: CallIdOf, arm: () => void) {
  const request = requestOf(row);
  arm();
  const response = await bounded(server.post('/v1/chat/completions', request), 15_000, row.name);
  const text = await bounded(response.text(), 5_000, row.name);
  const body = JSON.parse(text) as { error: Record<string, any> };
  expect(response.status, row.name).toBe(expected.status);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  expect(isOpenAIErrorBody(body), `${row.name}: ${text}`).toBe(true);
  const fields = { type: expected.type, code: expected.code };
  for (const [field, value] of Object.entries(fields))
    if (value !== undefined) expect(body.error[field], `error.${field}`).toBe(value);
  if (expected.param instanceof RegExp) expect(body.error.param).toMatch(expected.param);
  else if (expected.param !== undefined) expect(body.error.param).toBe(expected.param);
  for (const said of [...(expected.says ?? []), ...(expected.suggests ? [expected.suggests] : [])])
    expect(body.error.message).toContain(said);
  for (const never of expected.never ?? []) expect(text).not.toMatch(never);
  const callId = callIdOf(response.headers);
  const record = await recorded(server, callId);

  arm();
  const sdk = (await rejection(server.openai().chat.completions.create(request as never), 15_000)) as APIError;
  expect(sdk, row.name).toBeInstanceOf(sdkClass(expected.status));
  expect(sdk.status).toBe(expected.status);
  if (expected.code !== undefined) expect(sdk.code).toBe(expected.code);
  if (typeof expected.param === 'string') expect(sdk.param).toBe(expected.param);
  else if (expected.param instanceof RegExp) expect(sdk.param).toMatch(expected.param);
  for (const never of expected.never ?? []) expect(sdk.message).not.toMatch(never);
  callIdOf(sdk.headers);
  return runOf(record.attempts);
}

/**
 * A stream that broke after some text: the text, then `data: {"error":…}`, then the end, never `[DONE]`; the SDK
 * turns that event into an APIError thrown by its iterator, after the partial text.
 */
async function broken(server: ServeRig, row: FaultRow, expected: Broken, callIdOf: CallIdOf, arm: () => void) {
  const request = requestOf(row);
  arm();
  const response = await bounded(server.post('/v1/chat/completions', request));
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const callId = callIdOf(response.headers);
  const { data } = await readSSE(response);
  expect(data).not.toContain('[DONE]');
  const last = JSON.parse(data.at(-1)!);
  expect(isOpenAIErrorBody(last), JSON.stringify(last)).toBe(true);
  if (expected.type) expect(last.error.type).toBe(expected.type);
  if (expected.code) expect(last.error.code).toBe(expected.code);
  expect(textOf(data.slice(0, -1))).toBe(expected.partial);
  const record = await recorded(server, callId);
  expect(record).toMatchObject({ stream: true, status: 'error', output: { content: expected.partial } });
  checkBrokenRecord(record, expected);

  arm();
  const stream = await bounded(
    server.openai().chat.completions.create(request as unknown as OpenAI.ChatCompletionCreateParamsStreaming),
  );
  let received = '';
  const thrown = await rejection(
    (async () => {
      for await (const chunk of stream) received += chunk.choices[0]?.delta.content ?? '';
    })(),
  );
  expect(received).toBe(expected.partial);
  expect(thrown).toBeInstanceOf(OpenAI.APIError);
  for (const said of expected.says ?? []) expect((thrown as APIError).message).toContain(said);
  return runOf(record.attempts);
}

function textOf(events: string[]): string {
  return events.map((event) => JSON.parse(event).choices[0]?.delta.content ?? '').join('');
}

function runOf(attempts: ReadonlyArray<{ provider: string; status?: number | undefined; outcome: string }>) {
  return { attempts: chain(attempts), outcomes: attempts.map((attempt) => attempt.outcome) };
}
