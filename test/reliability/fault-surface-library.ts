import { expect } from 'vitest';
import {
  type CallRecord,
  type CompletionRequestNonStreaming,
  type CompletionRequestStreaming,
  type Gateway,
  SwitchyardError,
} from '../../src/index.ts';
import type { RecordingWait } from '../helpers/recording-wait.ts';
import type { Answered, Broken, Failed, FaultRow } from './fault-rows.ts';
import { hello } from './fault-rows.ts';
import { type Backends, bounded, drain, gatewayFor, MODELS, providerSettings, rejection, text } from './harness.ts';

/**
 * The fault matrix's rows (fault-rows.ts) in process: `createCompletion` on a gateway whose providers are the fake
 * servers behind their fronts. An answer is checked with its attempts, an error by its class, its fields, its
 * attempt chain and its OpenAI error body (`toJSON()`), a broken stream by the text it let through, the error its
 * iterator threw and the call's record.
 */
export interface SurfaceRun {
  /** Each attempt as `provider:status` (or `provider:outcome`). */
  attempts: string[];
  outcomes: string[];
}

export const chain = (attempts: ReadonlyArray<{ provider: string; status?: number | undefined; outcome: string }>) =>
  attempts.map((attempt) => `${attempt.provider}:${attempt.status ?? attempt.outcome}`);

export function libraryGateway(backends: Backends, row: FaultRow, wait: RecordingWait): Gateway {
  const { timeoutMs, maxRetries, withoutCredentials } = row.gateway ?? {};
  const { [row.provider]: _left, ...others } = providerSettings(backends);
  return gatewayFor(backends, {
    ...(timeoutMs ? { timeoutMs } : {}),
    ...(withoutCredentials ? { providers: others } : {}),
    retry: { initialDelayMs: 5, maxDelayMs: 2_000, wait: wait.wait, ...(maxRetries ? { maxRetries } : {}) },
  });
}

export async function runInProcess(
  backends: Backends,
  row: FaultRow,
  wait: RecordingWait,
  arm: () => void,
): Promise<SurfaceRun> {
  const gateway = libraryGateway(backends, row, wait);
  const request = requestOf(row);
  arm();
  const { expected } = row;
  if (expected.kind === 'error') return failed(gateway, request, expected);
  if (expected.kind === 'broken stream') return broken(gateway, request, expected, row);
  return answered(gateway, request, expected, row);
}

export function requestOf(row: FaultRow): Record<string, unknown> {
  return {
    model: MODELS[row.provider],
    messages: hello,
    ...(row.stream ? { stream: true } : {}),
    ...row.request,
  };
}

async function answered(gateway: Gateway, request: object, expected: Answered, row: FaultRow): Promise<SurfaceRun> {
  if (row.stream) {
    const stream = await bounded(gateway.createCompletion(request as CompletionRequestStreaming));
    const { chunks, error } = await drain(stream);
    expect(error).toBeUndefined();
    expect(text(chunks)).toBe(expected.content);
    expect(stream.switchyard.provider).toBe(expected.provider ?? row.provider);
    return runOf(stream.switchyard.attempts);
  }
  const response = await bounded(gateway.createCompletion(request as CompletionRequestNonStreaming));
  const message = response.choices[0]!.message;
  expect(message.content).toBe(expected.content);
  expect(response.switchyard.provider).toBe(expected.provider ?? row.provider);
  if (expected.parsed !== undefined) expect(message.parsed).toEqual(expected.parsed);
  if (expected.warning) expect(response.switchyard.warnings).toContainEqual(expect.objectContaining(expected.warning));
  return runOf(response.switchyard.attempts);
}

async function failed(gateway: Gateway, request: object, expected: Failed): Promise<SurfaceRun> {
  const error = await rejection(gateway.createCompletion(request as never));
  expect(error).toBeInstanceOf(expected.error);
  expect(error).toBeInstanceOf(SwitchyardError);
  const fields = {
    status: expected.status,
    type: expected.type,
    code: expected.code,
    provider: expected.provider,
    model: expected.model,
    retryable: expected.retryable,
  };
  for (const [field, value] of Object.entries(fields))
    if (value !== undefined) expect(error[field], `error.${field}`).toBe(value);
  if (expected.param instanceof RegExp) expect(error.param).toMatch(expected.param);
  else if (expected.param !== undefined) expect(error.param).toBe(expected.param);
  for (const said of expected.says ?? []) expect(error.message).toContain(said);
  if (expected.suggests) expect(error.suggestions).toContain(expected.suggests);
  const shown = `${error.message} ${JSON.stringify(error)} ${JSON.stringify(error.attempts)}`;
  for (const never of expected.never ?? []) expect(shown).not.toMatch(never);
  // Every error is a SwitchyardError whose toJSON is the OpenAI error body.
  const body = error.toJSON();
  expect(Object.keys(body.error).sort()).toEqual(['code', 'message', 'param', 'type']);
  expect(body.error).toMatchObject({ message: error.message, type: error.type, code: error.code ?? null });
  return runOf(error.attempts ?? []);
}

async function broken(gateway: Gateway, request: object, expected: Broken, row: FaultRow): Promise<SurfaceRun> {
  const stream = await bounded(gateway.createCompletion(request as CompletionRequestStreaming));
  const { chunks, error } = await drain(stream);
  expect(text(chunks)).toBe(expected.partial);
  // The partial answer never passes as a complete one.
  expect(chunks.some((chunk) => chunk.choices[0]?.finish_reason === 'stop')).toBe(false);
  expect(error?.name).toBe('StreamInterruptedError');
  const fields = { status: expected.status, code: expected.code, retryable: expected.retryable };
  for (const [field, value] of Object.entries(fields))
    if (value !== undefined) expect(error[field], `error.${field}`).toBe(value);
  expect(error.provider).toBe(row.provider);
  for (const said of expected.says ?? []) expect(error.message).toContain(said);
  // The record keeps the partial answer, as an error.
  await gateway.flush();
  const [record] = (await gateway.calls.list()).data;
  expect(record).toMatchObject({ stream: true, status: 'error', output: { content: expected.partial } });
  checkBrokenRecord(record!, expected);
  return runOf(error.attempts ?? []);
}

export function checkBrokenRecord(record: CallRecord, expected: Broken): void {
  if (expected.type) expect(record.error).toMatchObject({ type: expected.type });
  if (expected.status) expect(record.error).toMatchObject({ status: expected.status });
  if (expected.code) expect(record.error).toMatchObject({ code: expected.code });
}

function runOf(attempts: ReadonlyArray<{ provider: string; status?: number | undefined; outcome: string }>) {
  return { attempts: chain(attempts), outcomes: attempts.map((attempt) => attempt.outcome) };
}
