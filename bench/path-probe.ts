/**
 * Preloaded into a server under test by bench/serve-path.ts (`--import`): times one call's critical path at one
 * connection from Node's own events, with no probe in the server's code, so serve and the yardsticks are timed alike.
 * Marks: the node:http server's `request` event, the first socket write of a `POST` (the upstream request), the first
 * `HTTP/1.1` data read off a socket (the provider's answer), undici's `request:trailers` (the answer read whole), the
 * first `fs.writeSync` after it (a journal's write, where the server keeps one), and the socket write of the reply.
 * The spans, in µs per request, are written as JSON to PATH_PROBE_OUT every second and at SIGTERM.
 */
import diagnostics from 'node:diagnostics_channel';
import fs from 'node:fs';
import http from 'node:http';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';

type Marks = Partial<Record<'request' | 'upstream' | 'answer' | 'end' | 'journal', number>>;
const now = () => performance.now() * 1000;
/** This request's marks: one request at a time (one connection). */
let marks: Marks = {};
const spans = { before: [], provider: [], afterToEnd: [], endToJournal: [], journalToReply: [], after: [] } as Record<
  string,
  number[]
>;

type Emit = (this: http.Server, name: string | symbol, ...rest: unknown[]) => boolean;
const emit = http.Server.prototype.emit as Emit;
http.Server.prototype.emit = function probedEmit(this: http.Server, name: string | symbol, ...rest: unknown[]) {
  if (name === 'request') marks = { request: now() };
  return emit.call(this, name, ...rest);
};
type Push = (chunk: unknown, ...rest: unknown[]) => boolean;
const push = net.Socket.prototype.push as Push;
net.Socket.prototype.push = function probedPush(this: net.Socket, chunk: unknown, ...rest: unknown[]) {
  const first = Buffer.isBuffer(chunk) && chunk.length > 8 ? chunk.toString('latin1', 0, 8) : '';
  if (marks.upstream && !marks.answer && first === 'HTTP/1.1') marks.answer = now();
  return push.call(this, chunk, ...rest);
};
diagnostics.subscribe('undici:request:trailers', () => {
  if (marks.answer && !marks.end) marks.end = now();
});
const writeSync = fs.writeSync as (...args: unknown[]) => number;
(fs as { writeSync: unknown }).writeSync = function probedWriteSync(this: unknown, ...args: unknown[]) {
  if (marks.end && !marks.journal) marks.journal = now();
  return writeSync.apply(this, args);
};
// Named imports of node:fs (`import { writeSync } from 'node:fs'`) see the probed function from here on.
syncBuiltinESMExports();

const head = (data: unknown) =>
  typeof data === 'string' ? data.slice(0, 8) : Buffer.isBuffer(data) ? data.toString('latin1', 0, 8) : '';
type Socket = { _writeGeneric(writev: boolean, data: unknown, encoding: unknown, callback: unknown): unknown };
const socket = net.Socket.prototype as unknown as Socket;
const writeGeneric = socket._writeGeneric;
socket._writeGeneric = function probedWrite(this: Socket, writev, data, encoding, callback) {
  const parts = data as Array<{ chunk?: unknown }>;
  const first = head(writev ? (parts[0]?.chunk ?? parts[0]) : data);
  const at = now();
  if (first.startsWith('POST') && marks.request && !marks.upstream) marks.upstream = at;
  else if (first.startsWith('HTTP/1.1') && marks.request && marks.upstream && marks.answer && marks.end) {
    spans.before!.push(marks.upstream - marks.request);
    spans.provider!.push(marks.answer - marks.upstream);
    spans.afterToEnd!.push(marks.end - marks.answer);
    spans.endToJournal!.push((marks.journal ?? at) - marks.end);
    spans.journalToReply!.push(marks.journal ? at - marks.journal : 0);
    spans.after!.push(at - marks.answer);
    marks = {};
  }
  return writeGeneric.call(this, writev, data, encoding, callback);
};

const out = process.env.PATH_PROBE_OUT;
if (out) {
  const save = () => fs.writeFileSync(out, JSON.stringify(spans));
  setInterval(save, 1000).unref();
  process.once('SIGTERM', () => {
    save();
    process.exit(0);
  });
}
