import type * as KyselyModule from 'kysely';
import { lazyRequire } from '../internal/lazy-require.ts';

/**
 * Kysely, the query builder, loaded on first use: the package's import must not pay for it. On Node it is required
 * when a query is first built (SQLite's migrations build theirs synchronously, in a store's constructor); the web
 * build (load-kysely.web.ts) imports it when the memory engine first runs a query, a chunk of its own.
 */
export const kysely = lazyRequire<typeof KyselyModule>('kysely');

/** Waits until `kysely()` can be called: nothing to wait for on Node, where it loads when first called. */
export async function loadKysely(): Promise<void> {}
