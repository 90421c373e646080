/**
 * What a record-queue flush costs the journal's file system calls, the two ways it has been done: a file per flush
 * (open, write, close, and an unlink once its records are stored: the journal before issue 41's sixth round), and one
 * file emptied after each flush (write, ftruncate: the journal now). One flush's batch is `--records` records of
 * serve's size (~1.33 kB of JSON each), in a temporary directory on the file system `--dir` names (default: the
 * system's temporary directory, where serve's data directory usually is not: pass its own).
 *
 *   node bench/journal-flush.ts [--flushes 5000] [--records 32] [--dir /path]
 */
import { closeSync, ftruncateSync, mkdtempSync, openSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    flushes: { type: 'string', default: '5000' },
    records: { type: 'string', default: '32' },
    dir: { type: 'string', default: tmpdir() },
  },
});
const flushes = Number(args.flushes);
const records = Number(args.records);
const dir = mkdtempSync(join(args.dir, 'switchyard-journal-flush-'));
const batch = Buffer.from(`${'x'.repeat(1330)}\n`.repeat(records));

/** µs a flush, over `flushes` of them. */
function timed(flush: (index: number) => void): number {
  const started = process.hrtime.bigint();
  for (let index = 0; index < flushes; index++) flush(index);
  return Number(process.hrtime.bigint() - started) / flushes / 1000;
}

try {
  const fileEach = timed((index) => {
    const path = join(dir, `segment-${index}.jsonl`);
    const fd = openSync(path, 'a', 0o600);
    writeSync(fd, batch);
    closeSync(fd);
    unlinkSync(path);
  });
  const reused = openSync(join(dir, 'segment.jsonl'), 'a', 0o600);
  const emptied = timed(() => {
    writeSync(reused, batch);
    ftruncateSync(reused, 0);
  });
  closeSync(reused);
  const kb = (batch.length / 1024).toFixed(1);
  console.log(`${flushes} flushes of ${records} records (${kb} kB) in ${args.dir}, µs a flush (a request):`);
  console.log(
    `  a file per flush (open, write, close, unlink): ${fileEach.toFixed(1)} (${(fileEach / records).toFixed(2)})`,
  );
  console.log(
    `  one file emptied (write, ftruncate):           ${emptied.toFixed(1)} (${(emptied / records).toFixed(2)})`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
