/**
 * Preloaded into `switchyard serve` by bench/serve-allocations.ts (`--import`): V8's sampling heap profiler, keeping
 * the samples of objects the young and old collections freed (a request's garbage is what its cost is made of). The
 * first SIGUSR2 starts it, the second stops it and writes the profile to `SWITCHYARD_ALLOCATIONS_OUT` (SIGUSR1 would
 * start Node's debugger). With `SWITCHYARD_ALLOCATIONS_PROMOTED=1`, what a young-generation collection freed is left
 * out: what remains was promoted to the old generation, is still live, or was freed by a full collection (which
 * also frees young garbage: probably counted here too).
 * Serve replaces its own process once at start (with its young-generation flag): only that second process samples.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';

const out = process.env.SWITCHYARD_ALLOCATIONS_OUT;
if (out && process.execArgv.some((flag) => flag.startsWith('--max-semi-space-size'))) {
  const session = new Session();
  session.connect();
  session.post('HeapProfiler.enable');
  let sampling = false;
  process.on('SIGUSR2', () => {
    if (!sampling) {
      sampling = true;
      session.post('HeapProfiler.startSampling', {
        samplingInterval: 256,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: process.env.SWITCHYARD_ALLOCATIONS_PROMOTED !== '1',
      });
      return;
    }
    session.post('HeapProfiler.stopSampling', (error, result) => {
      // Written aside, then renamed: the bench reads the file once it exists, and a profile takes a while to write.
      writeFileSync(`${out}.part`, JSON.stringify(error ? { error: String(error) } : result.profile));
      renameSync(`${out}.part`, out);
    });
  });
}
