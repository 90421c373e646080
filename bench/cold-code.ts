/**
 * What a piece of serve's request path costs run once per event-loop turn, as a server at one connection runs it
 * (the CPU idle in between, waiting for the client or the provider), against the same run back to back in a loop, as
 * a micro-benchmark runs it. Each piece: a key's SHA-256 as serve's key check makes it, the benchmarks' request body
 * parsed, and a record-sized object serialised.
 *
 *   node bench/cold-code.ts [--turns 3000]
 *
 * Between turns the process sleeps on a 1 ms timer (Node's shortest; a c1 call waits ~130–170 µs on the mock, and
 * the client's turn as long again). Medians, µs.
 */
import { hash } from 'node:crypto';
import { parseArgs } from 'node:util';
import { SERVE_REQUEST_BODY } from './payloads.ts';

const { values: args } = parseArgs({
  options: { turns: { type: 'string', default: '3000' } },
});
const key = `sy-${'k'.repeat(48)}`;
const body = SERVE_REQUEST_BODY;
const record = {
  id: '01a22754-0b98-7414-bc87-7ea595274e14',
  created_at: new Date().toISOString(),
  request: JSON.parse(body),
  response: { choices: [{ message: { role: 'assistant', content: 'Paris, '.repeat(60) } }] },
  usage: { prompt_tokens: 24, completion_tokens: 120, total_tokens: 144 },
  metadata: { api_key_id: 'key_0123456789' },
};
const pieces: Record<string, () => unknown> = {
  "key's SHA-256 (base64)": () => hash('sha256', key, 'base64'),
  'request body JSON.parse': () => JSON.parse(body),
  'record JSON.stringify': () => JSON.stringify(record),
  'nothing (the timer itself)': () => undefined,
};
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
const time = (piece: () => unknown) => {
  const start = process.hrtime.bigint();
  piece();
  return Number(process.hrtime.bigint() - start) / 1000;
};
const turns = Number(args.turns);

const names = Object.keys(pieces);
const loops = new Map<string, number[]>();
for (const name of names) {
  const piece = pieces[name]!;
  for (let index = 0; index < 20_000; index += 1) piece();
  loops.set(
    name,
    Array.from({ length: turns }, () => time(piece)),
  );
}
// Every piece once a turn, in turn, as a request runs each step of its path once.
const perTurn = new Map<string, number[]>(names.map((name) => [name, []]));
await new Promise<void>((done) => {
  let turn = 0;
  const next = () => {
    for (const name of names) perTurn.get(name)!.push(time(pieces[name]!));
    if (++turn < turns) setTimeout(next, 1);
    else done();
  };
  setTimeout(next, 1);
});
console.log('| piece | in a loop, µs | once a turn (1 ms apart, each piece in turn), µs |\n|---|---:|---:|');
for (const name of names)
  console.log(`| ${name} | ${median(loops.get(name)!).toFixed(2)} | ${median(perTurn.get(name)!).toFixed(2)} |`);
