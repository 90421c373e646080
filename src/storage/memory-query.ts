/**
 * The memory engine's interpreter of Kysely's operation trees, reads and writes: imported with Kysely when the
 * engine first runs a query (memory-engine.ts), so a page whose gateway only records its calls never loads it.
 */
export { compileSelect } from './memory-select.ts';
export { compileWrite } from './memory-write.ts';
