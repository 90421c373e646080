/** The parts of a V8 `.cpuprofile` the profiling scripts read, and how they name where a sample was taken. */
export interface CpuProfile {
  nodes: Array<{
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    children?: number[];
  }>;
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** `src/gateway.ts`, `openai`, `@ai-sdk/provider-utils`, `node:internal/…` groups, `(garbage collector)`, … */
export function areaOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const modules = url.lastIndexOf('/node_modules/');
  if (modules !== -1) {
    const rest = url.slice(modules + '/node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  if (url.startsWith('node:internal/deps/undici')) return 'node:undici (global fetch)';
  if (url.startsWith('node:internal/webstreams')) return 'node:webstreams';
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/').slice(0, 2).join('/')}`;
  const src = url.indexOf('/src/');
  if (src !== -1) return url.slice(src + 1);
  // The built package (switchyard serve runs dist/cli.js): one area, the function names tell the parts apart.
  if (url.includes('/dist/')) return 'switchyard (dist)';
  const bench = url.indexOf('/bench/');
  if (bench !== -1) return url.slice(bench + 1);
  return url;
}

export function frameKey(frame: { functionName: string; url: string; lineNumber: number }): string {
  const area = areaOf(frame.url, frame.functionName);
  const name = frame.functionName || '(anonymous)';
  return frame.url ? `${name} ${area}:${frame.lineNumber + 1}` : name;
}
