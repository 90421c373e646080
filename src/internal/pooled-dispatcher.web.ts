/**
 * The web build's pooled dispatcher (tsup.web.ts swaps it for pooled-dispatcher.ts): undici is Node's HTTP client
 * and is not bundled for Workers or browsers, whose providers send through `fetch` (wire/runtime-transport.ts).
 */
import type { Dispatcher } from 'undici';
import { InternalError } from '../errors.ts';
import { runtimeName } from './node-builtin.ts';

export async function createPooledDispatcher(): Promise<Dispatcher> {
  throw nodeOnly();
}

export function httpClientFailure(error: unknown): never {
  throw error;
}

export async function requestOn(): Promise<Dispatcher.ResponseData> {
  throw nodeOnly();
}

function nodeOnly(): InternalError {
  return new InternalError(`The pooled HTTP transport (undici) runs on Node.js only, not in ${runtimeName()}.`);
}
