import { MissingCredentialsError } from '../errors.ts';
import { lazyNodeBuiltin } from '../internal/node-builtin.ts';
import { redactUrlCredentials } from '../internal/redact.ts';
import { processEnv } from '../internal/runtime.ts';
import { DeploymentStoreError } from './errors.ts';
import { FileDeploymentStore, USE_ANOTHER_STORE } from './file-store.ts';
import { RemoteDeploymentStore } from './remote-store.ts';
import type { DeploymentStore } from './store.ts';

const nodeUrl = lazyNodeBuiltin('node:url', 'A deployments directory', USE_ANOTHER_STORE);

export interface CreateDeploymentStoreOptions {
  /** Remote stores: the key sent as `Authorization: Bearer …` (default `SWITCHYARD_API_KEY`). */
  apiKey?: string;
  /** Remote stores: how long an answer is served from the cache before it is revalidated (default 30 s). */
  ttlMs?: number;
  /** Remote stores: the fetch implementation (default `globalThis.fetch`). */
  fetch?: typeof globalThis.fetch;
  /** Where to read `SWITCHYARD_API_KEY` (default `process.env`). */
  env?: Record<string, string | undefined>;
}

/**
 * A store from a configuration value: an `http(s)://` URL gives a `RemoteDeploymentStore`, a `file://` URL or a
 * path gives a `FileDeploymentStore` over that directory, a store is returned as it is.
 */
export function createDeploymentStore(
  source: string | DeploymentStore,
  options: CreateDeploymentStoreOptions = {},
): DeploymentStore {
  if (typeof source !== 'string') return source;
  if (/^https?:\/\//i.test(source)) {
    const apiKey = options.apiKey ?? (options.env ?? processEnv()).SWITCHYARD_API_KEY;
    if (!apiKey) {
      throw new MissingCredentialsError(
        `The deployment store ${redactUrlCredentials(source)} needs an API key: set SWITCHYARD_API_KEY or pass apiKey.`,
        [],
      );
    }
    return new RemoteDeploymentStore({
      url: source,
      apiKey,
      ...(options.ttlMs !== undefined ? { ttlMs: options.ttlMs } : {}),
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
  }
  if (/^file:\/\//i.test(source)) return new FileDeploymentStore(nodeUrl().fileURLToPath(source));
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(source)) {
    const shown = redactUrlCredentials(source);
    throw new DeploymentStoreError(`Unsupported deployment store "${shown}": give an http(s):// URL or a directory.`, {
      location: shown,
    });
  }
  return new FileDeploymentStore(source);
}
