#!/usr/bin/env node
import { boundServeMemory } from './cli/serve-process.ts';
import { belowNodeFloor, NODE_FLOOR } from './internal/node-floor.ts';

// On an older Node.js every provider call would fail (undici, the HTTP client, does not load): said once, up front.
if (belowNodeFloor()) {
  process.stderr.write(
    `switchyard: this is Node.js ${process.version}; it needs Node.js ${NODE_FLOOR} or newer: upgrade Node.js.\n`,
  );
  process.exit(1);
}

// `serve` replaces its own process to bound its memory (boundServeMemory): first, before the commands are loaded,
// which the replaced process would have loaded for nothing (~0.2 s of CPU at every start).
if (process.argv[2] === 'serve') boundServeMemory();

void import('./cli/program.ts').then(({ runCli }) => runCli());
