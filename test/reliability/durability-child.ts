/**
 * The child process of durability.test.ts, run by Node 24 directly (type stripping, no build):
 *
 *   node durability-child.ts burst <db> <round>   writes batches of call records through SqliteSink (WAL) forever,
 *                                                 printing "begin <rows>" before and "committed <rows>" after
 *                                                 each batch (one transaction), until killed.
 *   node durability-child.ts close <db> <jsonl> <calls>
 *                                                 makes <calls> calls through a gateway whose records wait in the
 *                                                 queue (no timer flush), then gateway.close() and exits at once.
 */
import { createGateway } from '../../src/index.ts';
import { type CallRecord, JsonlFileSink, SqliteSink } from '../../src/records/index.ts';
import { makeRecord } from '../records/make-record.ts';

const [mode, ...args] = process.argv.slice(2);

if (mode === 'burst') {
  const [path, round] = args as [string, string];
  const sink = new SqliteSink(path);
  // Records big enough that a batch transaction takes a while: a kill lands inside one more often than between.
  const padding = 'p'.repeat(4_000);
  let written = 0;
  for (let batch = 0; ; batch++) {
    const size = 1 + ((batch * 37) % 150);
    const records: CallRecord[] = [];
    for (let index = 0; index < size; index++) {
      records.push(
        makeRecord({
          createdAt: Date.UTC(2026, 0, 1) + Number(round) * 10_000_000 + written + index,
          agent_id: `round-${round}`,
          input_messages: [{ role: 'user', content: `${round}/${written + index} ${padding}` }],
        }),
      );
    }
    process.stdout.write(`begin ${written + size}\n`);
    await sink.write(records);
    written += size;
    process.stdout.write(`committed ${written}\n`);
    if (batch % 20 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
} else if (mode === 'close') {
  const [path, jsonl, count] = args as [string, string, string];
  const gateway = createGateway({
    mock: true,
    // Nothing is written before close(): no timer flush within the test, no batch ever full.
    records: {
      sinks: [new SqliteSink(path), new JsonlFileSink(jsonl)],
      flushIntervalMs: 600_000,
      batchSize: 1_000_000,
    },
  });
  const calls: Array<Promise<unknown>> = [];
  for (let index = 0; index < Number(count); index++) {
    const messages = [{ role: 'user' as const, content: `call ${index}` }];
    if (index % 10 === 9) {
      calls.push(gateway.createCompletion({ model: 'no-such-model', messages }).catch(() => undefined));
    } else if (index % 3 === 0) {
      calls.push(
        gateway.createCompletion({ model: 'gpt-4o-latest', messages, stream: true }).then(async (stream) => {
          for await (const chunk of stream) void chunk;
        }),
      );
    } else {
      calls.push(gateway.createCompletion({ model: 'claude-haiku-4-5', messages, metadata: { agent_id: 'closer' } }));
    }
  }
  await Promise.all(calls);
  await new Promise((resolve) => setImmediate(resolve));
  process.stdout.write(`before-close ${JSON.stringify(gateway.recordStats)}\n`);
  await gateway.close();
  process.stdout.write(`after-close ${JSON.stringify(gateway.recordStats)}\n`);
  process.exit(0);
} else {
  process.stderr.write(`unknown mode ${mode}\n`);
  process.exit(2);
}
