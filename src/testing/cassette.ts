import { existsSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { ProvidersSettings } from '../providers/registry.ts';
import { load, nullBodyStatus, storedResponse } from './cassette-file.ts';
import { firstDifference, matchKey, normaliseBody, scrub } from './cassette-match.ts';

/**
 * Cassettes: record the HTTP traffic between the provider SDKs and the providers during one run, store it in a
 * JSON file, and replay it in later runs, so an agent's tests run without network and without keys, and give the
 * same answers every time.
 *
 * ```ts
 * const cassette = createCassette({ path: 'test/cassettes/triage.json', mode: 'auto' });
 * const gateway = createGateway({ providers: cassette.providers(['openai', 'anthropic']) });
 * // … run the agent …
 * await cassette.save(); // writes the file after a recording; does nothing after a replay
 * ```
 *
 * A cassette is a `fetch` function handed to the SDKs (`providers: { <name>: { fetch } }`).
 *
 * - **What is stored.** For each request: the method, the URL (its origin kept for reference, secret query
 *   parameters removed) and the body, normalised. For each response: the status, a few headers (see
 *   `keepHeaders`) and the body as text; server-sent-event streams are stored as their raw text, JSON answers as
 *   JSON. No request header is stored, so no `authorization`, `x-api-key`, `x-goog-api-key` or `api-key`; the
 *   query parameters `key`, `api_key`, `api-key`, `apikey`, `access_token` and `token` are dropped; and every key
 *   that was sent in those headers or parameters (and every value in `secrets`) is replaced by `[redacted]`
 *   wherever it appears in a stored body (a 401 that quotes the key, for example).
 * - **Matching.** A request matches a recorded one when the method, the URL path with its remaining query (sorted)
 *   and the normalised body are equal. The origin is ignored, so a cassette recorded against a fake server
 *   replays with the real base URL and the other way round. The normalised body is the JSON body with object keys
 *   sorted at every level, array order kept, and every field kept (`stream`, `stream_options`, `max_tokens`, …),
 *   except those listed in `ignoreFields`; a body that is not JSON is compared as text. When comparing, the
 *   string values of `id`, `tool_call_id` and `tool_use_id` fields are replaced by their order of first
 *   appearance in the body, because tool-call ids made up during a run (Gemini's) differ in the next run.
 * - **Order.** Identical requests (a retry after a 429, the same question asked twice) get the recorded answers
 *   in the order they were recorded; each recorded interaction is replayed once.
 * - **No match.** Replay throws a `CassetteMismatchError` that names the request and the cassette, with the
 *   closest recorded request for that path. The SDK reports it as a connection error, so through the gateway it
 *   arrives as a `ProviderError` whose message includes this text.
 * - **Record mode** forwards each request to the real `fetch` and hands the SDK the complete response once it has
 *   been read, so a stream reaches the SDK at once, when it has ended. Requests that fail without an HTTP
 *   response (a dropped connection) are not recorded.
 */
export type CassetteMode = 'record' | 'replay' | 'auto';

export interface CassetteOptions {
  /** The cassette file (JSON). */
  path: string;
  /**
   * `record` calls the providers and keeps what they answer (`save()` writes it); `replay` answers from the file
   * and never calls out; `auto` (default) replays when the file exists and records when it does not.
   */
  mode?: CassetteMode;
  /** The fetch that reaches the providers when recording (default `globalThis.fetch`). */
  fetch?: typeof globalThis.fetch;
  /**
   * Response headers kept, lower case (default: content-type, retry-after, retry-after-ms, x-request-id, request-id).
   */
  keepHeaders?: string[];
  /** Top-level body fields left out when matching and storing, for values that change from run to run. */
  ignoreFields?: string[];
  /** More values to replace by `[redacted]` in what is stored (the keys sent in headers are found on their own). */
  secrets?: string[];
}

export interface CassetteRequest {
  method: string;
  /** The URL as sent, without secret query parameters. */
  url: string;
  /** The normalised body: JSON with sorted keys, or text, or `null` when there was none. */
  body: unknown;
}

export interface CassetteResponse {
  status: number;
  headers: Record<string, string>;
  /** The body, when it is not JSON (a server-sent-event stream, text). */
  body?: string;
  /** The body, when it is JSON. */
  json?: unknown;
}

export interface CassetteInteraction {
  request: CassetteRequest;
  response: CassetteResponse;
}

export interface CassetteFile {
  version: 1;
  recorded_at: string;
  interactions: CassetteInteraction[];
}

export interface Cassette {
  /** `record` or `replay` (`auto` resolved when the cassette was created). */
  readonly mode: 'record' | 'replay';
  readonly path: string;
  /** Recorded so far (record mode), or loaded from the file (replay mode). */
  readonly interactions: readonly CassetteInteraction[];
  /** The fetch to give the SDKs; `providers()` does it for you. */
  readonly fetch: typeof globalThis.fetch;
  /**
   * The `providers` option of `createGateway` for these providers, each with the cassette's fetch; `settings`
   * is merged in per provider. In replay mode each gets a placeholder `apiKey`, so no real key is needed.
   */
  providers(names: string | string[], settings?: ProvidersSettings): ProvidersSettings;
  /** Writes the recording to `path` (record mode); does nothing in replay mode. */
  save(): Promise<void>;
  /** Recorded interactions not replayed yet (replay mode): useful to check that a test made every call it recorded. */
  unused(): CassetteInteraction[];
}

/** No recorded interaction answers a request made during a replay. */
export class CassetteMismatchError extends Error {
  override name = 'CassetteMismatchError';
  readonly request: CassetteRequest;
  constructor(message: string, request: CassetteRequest) {
    super(message);
    this.request = request;
  }
}

const DEFAULT_HEADERS = ['content-type', 'retry-after', 'retry-after-ms', 'x-request-id', 'request-id'];

const SECRET_HEADERS = ['authorization', 'x-api-key', 'x-goog-api-key', 'api-key'];

const SECRET_PARAMS = ['key', 'api_key', 'api-key', 'apikey', 'access_token', 'token'];

type FetchInput = Parameters<typeof globalThis.fetch>[0];

/** What replay mode gives each provider instead of a key (nothing is sent anywhere). */
export const CASSETTE_REPLAY_KEY = 'cassette-replay-key';

export function createCassette(options: CassetteOptions): Cassette {
  const { path } = options;
  const requested = options.mode ?? 'auto';
  const mode: 'record' | 'replay' = requested === 'auto' ? (existsSync(path) ? 'replay' : 'record') : requested;
  const keepHeaders = new Set((options.keepHeaders ?? DEFAULT_HEADERS).map((name) => name.toLowerCase()));
  const ignoreFields = new Set(options.ignoreFields ?? []);
  const realFetch = options.fetch ?? globalThis.fetch;
  const extraSecrets = options.secrets ?? [];

  const interactions: CassetteInteraction[] = mode === 'replay' ? load(path) : [];
  const used = new Set<number>();
  /** Record mode: a slot per request, in the order they were made, filled when the response is complete. */
  const slots: Array<CassetteInteraction | undefined> = [];

  async function describe(
    input: FetchInput,
    init: RequestInit | undefined,
  ): Promise<{ request: Request; stored: CassetteRequest; secrets: string[] }> {
    const request = new Request(input, init);
    const secrets = [...extraSecrets];
    for (const name of SECRET_HEADERS) {
      const value = request.headers.get(name);
      if (value) secrets.push(value.replace(/^Bearer\s+/i, ''), value);
    }
    const url = new URL(request.url);
    for (const name of [...url.searchParams.keys()]) {
      if (SECRET_PARAMS.includes(name.toLowerCase())) {
        secrets.push(...url.searchParams.getAll(name));
        url.searchParams.delete(name);
      }
    }
    url.username = '';
    url.password = '';
    const text = request.body === null ? null : await request.clone().text();
    return {
      request,
      stored: { method: request.method, url: url.toString(), body: normaliseBody(text, ignoreFields, secrets) },
      secrets,
    };
  }

  async function recordingFetch(input: FetchInput, init?: RequestInit): Promise<Response> {
    const { request, stored, secrets } = await describe(input, init);
    const slot = slots.push(undefined) - 1;
    let response: Response;
    let text: string;
    try {
      response = await realFetch(request);
      text = await response.text();
    } catch (error) {
      slots[slot] = undefined;
      throw error;
    }
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      if (keepHeaders.has(name.toLowerCase())) headers[name.toLowerCase()] = value;
    });
    slots[slot] = { request: stored, response: storedResponse(response.status, headers, scrub(text, secrets)) };
    // The SDK gets the body as it came (the stored copy is the redacted one), already decoded.
    const passed = new Headers(response.headers);
    for (const name of ['content-encoding', 'content-length', 'transfer-encoding']) passed.delete(name);
    return new Response(nullBodyStatus(response.status) ? null : text, {
      status: response.status,
      statusText: response.statusText,
      headers: passed,
    });
  }

  async function replayingFetch(input: FetchInput, init?: RequestInit): Promise<Response> {
    const { request, stored } = await describe(input, init);
    if (request.signal.aborted)
      throw request.signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');
    const wanted = matchKey(stored);
    const index = interactions.findIndex(
      (interaction, position) => !used.has(position) && matchKey(interaction.request) === wanted,
    );
    if (index === -1) throw mismatch(stored);
    used.add(index);
    const { status, headers, body, json } = interactions[index]!.response;
    const text = json !== undefined ? JSON.stringify(json) : (body ?? '');
    return new Response(nullBodyStatus(status) ? null : text, { status, headers });
  }

  function mismatch(stored: CassetteRequest): CassetteMismatchError {
    const target = new URL(stored.url);
    const samePath = interactions.filter(
      (interaction) => new URL(interaction.request.url).pathname === target.pathname,
    );
    const unusedCount = interactions.filter((_, position) => !used.has(position)).length;
    const closest = samePath.find((interaction) => !used.has(interactions.indexOf(interaction))) ?? samePath[0];
    const excerpt = (value: unknown) => {
      const text = typeof value === 'string' ? value : JSON.stringify(value);
      return text === undefined ? 'no body' : text.length > 300 ? `${text.slice(0, 300)}…` : text;
    };
    const lines = [
      `The cassette ${path} has no recorded answer for ${stored.method} ${target.pathname}${target.search} with ` +
        `body ${excerpt(stored.body)}.`,
      samePath.length === 0
        ? `It holds no request to ${target.pathname} at all (${interactions.length} interactions, ${unusedCount} ` +
          `not replayed yet).`
        : `It holds ${samePath.length} request(s) to that path (${unusedCount} interactions not replayed yet); the ` +
          `first differs: ${firstDifference(closest!.request.body, stored.body)}.`,
      `Record it again: createCassette({ mode: 'record' }), or delete the file and use mode 'auto'.`,
    ];
    return new CassetteMismatchError(lines.join(' '), stored);
  }

  const fetch = (mode === 'record' ? recordingFetch : replayingFetch) as typeof globalThis.fetch;

  return {
    mode,
    path,
    get interactions() {
      return mode === 'record' ? slots.filter((slot): slot is CassetteInteraction => slot !== undefined) : interactions;
    },
    fetch,
    providers(names, settings = {}) {
      const list = typeof names === 'string' ? [names] : names;
      return Object.fromEntries(
        list.map((name) => [
          name,
          { ...(mode === 'replay' ? { apiKey: CASSETTE_REPLAY_KEY } : {}), ...settings[name], fetch },
        ]),
      );
    },
    async save() {
      if (mode !== 'record') return;
      const file: CassetteFile = {
        version: 1,
        recorded_at: new Date().toISOString(),
        interactions: slots.filter((slot): slot is CassetteInteraction => slot !== undefined),
      };
      await mkdir(dirname(path), { recursive: true });
      const temporary = `${path}.${process.pid}.tmp`;
      await writeFile(temporary, `${JSON.stringify(file, null, 2)}\n`, 'utf8');
      await rename(temporary, path);
    },
    unused: () => interactions.filter((_, position) => !used.has(position)),
  };
}
