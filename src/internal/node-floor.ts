import { isNode } from './runtime.ts';

/**
 * The oldest Node.js this package runs on: undici 8, its HTTP client, declares 22.19 (loaded whole, it failed on 20
 * and 22.12–22.14; the HTTP transport now refuses older versions before it loads undici). `engines` in package.json
 * says the same (a test checks), and CI makes real calls on exactly this version.
 */
export const NODE_FLOOR = '22.19.0';

/** Whether `version` (default: this process's) is older than `NODE_FLOOR`. */
export function belowNodeFloor(version: string = nodeVersion()): boolean {
  const [major = 0, minor = 0, patch = 0] = version.replace(/^v/, '').split('.').map(Number);
  const [floorMajor, floorMinor, floorPatch] = NODE_FLOOR.split('.').map(Number) as [number, number, number];
  if (major !== floorMajor) return major < floorMajor;
  if (minor !== floorMinor) return minor < floorMinor;
  return patch < floorPatch;
}

/** A sentence for an error met on an older Node.js, or `''` on a supported one (and on Bun, Deno and the rest). */
export function nodeFloorHint(version: string | undefined = isNode() ? nodeVersion() : undefined): string {
  if (version === undefined || !belowNodeFloor(version)) return '';
  const running = version.replace(/^v?/, 'v');
  return ` This is Node.js ${running}; switchyard-llm needs Node.js ${NODE_FLOOR} or newer: upgrade Node.js.`;
}

const nodeVersion = (): string =>
  (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node ?? '';
