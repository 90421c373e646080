/** The Node.js built-ins the package's main entry uses, each fetched when needed (types only are imported here). */
interface BuiltInModule {
  'node:crypto': typeof import('node:crypto');
  'node:events': typeof import('node:events');
  'node:fs': typeof import('node:fs');
  'node:fs/promises': typeof import('node:fs/promises');
  'node:http': typeof import('node:http');
  'node:module': typeof import('node:module');
  'node:os': typeof import('node:os');
  'node:path': typeof import('node:path');
  'node:stream': typeof import('node:stream');
  'node:url': typeof import('node:url');
  'node:zlib': typeof import('node:zlib');
}

/** The runtime this code runs in, named for errors: what a feature that needs Node.js cannot find. */
export function runtimeName(): string {
  const scope = globalThis as {
    Deno?: { version?: { deno?: string } };
    Bun?: { version?: string };
    navigator?: { userAgent?: string };
    document?: unknown;
    process?: { versions?: { node?: string } };
  };
  if (scope.Deno) return `Deno ${scope.Deno.version?.deno ?? ''}`.trim();
  if (scope.Bun) return `Bun ${scope.Bun.version ?? ''}`.trim();
  if (scope.navigator?.userAgent === 'Cloudflare-Workers') return 'Cloudflare Workers (workerd)';
  if (scope.process?.versions?.node) return `Node.js ${scope.process.versions.node}`;
  if (scope.document !== undefined) return 'a browser';
  return 'this JavaScript runtime';
}

/** A feature needs a Node.js module the runtime does not have (a file store in a Worker, SQLite in a browser). */
export class RuntimeUnsupportedError extends Error {
  override name = 'RuntimeUnsupportedError';
  readonly code = 'runtime_unsupported';
}

/**
 * A Node.js built-in, fetched when a feature first needs it (`process.getBuiltinModule`, Node.js ≥ 22.3, Bun, Deno)
 * rather than imported: the package's main entry then imports no Node built-in, so it bundles for Workers and
 * browsers, and a feature that needs the file system fails there with this error, naming the runtime and the feature
 * (`feature` says what the caller asked for; `instead` what to use there).
 */
export function nodeBuiltin<ID extends keyof BuiltInModule>(
  id: ID,
  feature: string,
  instead?: string,
): BuiltInModule[ID] {
  const found = optionalNodeBuiltin(id);
  if (found) return found;
  throw new RuntimeUnsupportedError(
    `${feature} needs ${id}, which ${runtimeName()} does not provide.${instead ? ` ${instead}` : ''}`,
  );
}

/** The built-in when the runtime has it, else undefined (a faster path that has a web-standard fallback). */
export function optionalNodeBuiltin<ID extends keyof BuiltInModule>(id: ID): BuiltInModule[ID] | undefined {
  const scope = globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } };
  try {
    return (scope.process?.getBuiltinModule?.(id) ?? undefined) as BuiltInModule[ID] | undefined;
  } catch {
    return undefined;
  }
}

/** `nodeBuiltin` fetched on the first call of the getter and kept: for a module whose functions use one throughout. */
export function lazyNodeBuiltin<ID extends keyof BuiltInModule>(
  id: ID,
  feature: string,
  instead?: string,
): () => BuiltInModule[ID] {
  let found: BuiltInModule[ID] | undefined;
  return () => (found ??= nodeBuiltin(id, feature, instead));
}
