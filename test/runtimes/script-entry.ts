/**
 * The scenario as a script, for Node, Bun and Deno: the library as an application imports it (the package's own
 * name, resolved through its `exports`), the fake providers' URLs as the first argument; prints the rows as JSON.
 */
import * as switchyard from 'switchyard-llm';
import { runScenario } from './scenario.ts';

declare const Deno: { args: string[] } | undefined;
const args: string[] = typeof Deno !== 'undefined' ? Deno.args : (globalThis as any).process.argv.slice(2);
const rows = await runScenario(switchyard, JSON.parse(args[0]!));
console.log(JSON.stringify(rows));
