/**
 * A yardstick: the work `switchyard serve` must do for a plain chat completion, written straight, with none of its
 * structure (no pipeline stages, routing, dialects, limits or validation beyond the two fields it reads). What it
 * does per request, as serve does:
 * - reads the body, hashes the bearer key (SHA-256) and compares it in constant time with the stored hash;
 * - parses the request, writes the provider's request anew and sends it with undici;
 * - parses the answer, prices its usage and builds a call record of serve's size;
 * - appends the record's JSON line to a journal written once per event-loop turn (one `writeSync`), and answers only
 *   after that write, as serve's group commit does;
 * - inserts the records into SQLite (WAL, `synchronous = NORMAL`) 32 to a transaction, into a table with serve's
 *   columns and indexes.
 * Beside the bare undici proxy (bench/undici-proxy.ts) it bounds what a redesign of serve's request path could reach
 * on one core (docs/performance.md); it is not a server to use.
 *
 *   GATEWAY_KEY=<key> node bench/essential-gateway.ts <port> <data dir>      (OPENAI_BASE_URL from the environment)
 */
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { ftruncateSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { Agent } from 'undici';

const upstream = new URL(`${process.env.OPENAI_BASE_URL}/chat/completions`);
const agent = new Agent({ keepAliveTimeout: 60_000, connections: 128 });
const sha256 = (text: string) => createHash('sha256').update(text).digest();
if (!process.env.GATEWAY_KEY) throw new Error('GATEWAY_KEY: the bearer key to accept');
/** The one key it accepts, stored as serve stores keys: its hash. */
const storedKeyHash = sha256(process.env.GATEWAY_KEY);
/** Dollars per token, in and out (gpt-4o-mini's list price). */
const PRICE = { input: 0.15e-6, output: 0.6e-6 };

const dir = process.argv[3]!;
mkdirSync(dir, { recursive: true });
const journal = openSync(join(dir, 'journal.jsonl'), 'a');
const db = new DatabaseSync(join(dir, 'calls.sqlite'));
db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
/** serve's `calls` columns (src/records/calls-schema.ts), in order. */
const COLUMNS = (
  'id created_at dialect agent_id trace_id workflow_name deployment_id requested_model model ' +
  'provider status stream prompt_tokens completion_tokens reasoning_tokens cached_tokens ' +
  'cache_write_tokens cost_usd cost_input_usd cost_cache_read_usd cost_cache_write_usd ' +
  'cost_output_usd cost_reasoning_usd latency_ms record api_key_id'
).split(' ');
db.exec(`CREATE TABLE calls (${COLUMNS.join(', ')}, PRIMARY KEY (id))`);
db.exec('CREATE INDEX calls_by_created_at ON calls (created_at, id)');
for (const column of ['agent_id', 'trace_id', 'workflow_name', 'api_key_id'])
  db.exec(`CREATE INDEX calls_with_${column} ON calls (${column}, created_at, id) WHERE ${column} IS NOT NULL`);
const insert = db.prepare(`INSERT INTO calls VALUES (${COLUMNS.map(() => '?').join(', ')})`);

type Row = Array<string | number | null>;
const queued: Row[] = [];
let flushTimer: NodeJS.Timeout | undefined;
let flushSoon = false;
function queueRow(row: Row): void {
  queued.push(row);
  if (queued.length >= 32 && !flushSoon) {
    flushSoon = true;
    setImmediate(flush);
  } else flushTimer ??= setTimeout(flush, 1000);
}
function flush(): void {
  flushSoon = false;
  clearTimeout(flushTimer);
  flushTimer = undefined;
  while (queued.length > 0) {
    const batch = queued.splice(0, 32);
    db.exec('BEGIN IMMEDIATE');
    for (const row of batch) insert.run(...row);
    db.exec('COMMIT');
  }
  // Every line written so far is a stored row now: the journal starts over (serve deletes its file instead).
  ftruncateSync(journal, 0);
}

/** This turn's journal lines and the answers waiting for them. */
let lines = '';
let waiting: Array<() => void> = [];
function journaled(line: string, then: () => void): void {
  if (waiting.length === 0) setImmediate(commit);
  lines += `${line}\n`;
  waiting.push(then);
}
function commit(): void {
  const answers = waiting;
  writeSync(journal, lines);
  lines = '';
  waiting = [];
  for (const answer of answers) answer();
}

function refuse(response: ServerResponse, status: number, message: string): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ error: { message } }));
}

async function handle(body: Buffer, authorization: string | undefined, response: ServerResponse): Promise<void> {
  const startedAt = Date.now();
  const key = authorization?.startsWith('Bearer ') ? authorization.slice(7) : '';
  if (!timingSafeEqual(sha256(key), storedKeyHash)) return refuse(response, 401, 'unknown key');
  const request = JSON.parse(body.toString('utf8'));
  if (typeof request.model !== 'string' || !Array.isArray(request.messages))
    return refuse(response, 400, 'model and messages are required');
  const { model, messages, ...rest } = request;
  const answer = await agent.request({
    origin: upstream.origin,
    path: upstream.pathname,
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${process.env.OPENAI_API_KEY}` },
    body: JSON.stringify({ ...rest, model, messages }),
  });
  const completion = JSON.parse(await answer.body.text());
  if (answer.statusCode !== 200) return refuse(response, 502, 'the provider refused');
  const usage = completion.usage ?? { prompt_tokens: 0, completion_tokens: 0 };
  const input = usage.prompt_tokens * PRICE.input;
  const output = usage.completion_tokens * PRICE.output;
  const record = {
    id: randomUUID(),
    created_at: new Date(startedAt).toISOString(),
    dialect: 'chat',
    requested_model: model,
    model: completion.model,
    provider: 'openai',
    status: 'success',
    stream: false,
    request: { model, messages, ...rest },
    response: completion,
    usage,
    cost: { total_usd: input + output, input_usd: input, output_usd: output },
    latency_ms: Date.now() - startedAt,
    metadata: { api_key_id: 'key_essential' },
  };
  const json = JSON.stringify(record);
  const columns: Record<string, string | number> = {
    id: record.id,
    created_at: record.created_at,
    dialect: 'chat',
    requested_model: model,
    model: record.model,
    provider: 'openai',
    status: 'success',
    stream: 0,
    prompt_tokens: usage.prompt_tokens,
    completion_tokens: usage.completion_tokens,
    reasoning_tokens: 0,
    cached_tokens: 0,
    cache_write_tokens: 0,
    cost_usd: input + output,
    cost_input_usd: input,
    cost_cache_read_usd: 0,
    cost_cache_write_usd: 0,
    cost_output_usd: output,
    cost_reasoning_usd: 0,
    latency_ms: record.latency_ms,
    record: json,
    api_key_id: 'key_essential',
  };
  queueRow(COLUMNS.map((column) => columns[column] ?? null));
  const text = JSON.stringify(completion);
  journaled(json, () => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    response.end(text);
  });
}

const server = createServer({ keepAliveTimeout: 60_000 }, (request, response) => {
  const parts: Buffer[] = [];
  request.on('data', (part: Buffer) => parts.push(part));
  request.on('end', () => {
    handle(Buffer.concat(parts), request.headers.authorization, response).catch((error: unknown) =>
      refuse(response, 502, String(error)),
    );
  });
});
server.listen(Number(process.argv[2]), '127.0.0.1');
// An exit Node runs its hooks for, so that `--cpu-prof` writes its profile (bench/profile-server.ts).
process.once('SIGINT', () => process.exit(0));
