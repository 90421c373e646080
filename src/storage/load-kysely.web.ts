import type * as KyselyModule from 'kysely';

/**
 * The web build's Kysely (tsup.web.ts swaps it for load-kysely.ts): imported when the memory engine first runs a
 * query (`loadKysely`), so a page's bundler puts it in a chunk of its own, which a page that only makes calls (and
 * records them: the memory engine writes rows without a query) never loads. Queries are built by the engine that
 * runs them (`Query` in engine.ts), after it waited for `loadKysely`.
 */
let loaded: typeof KyselyModule | undefined;

export function kysely(): typeof KyselyModule {
  if (!loaded)
    throw new Error('Kysely was used before it loaded: a query is built only by the engine that runs it (engine.ts).');
  return loaded;
}

export async function loadKysely(): Promise<void> {
  loaded ??= (await import('../internal/kysely-web-members.ts')) as unknown as typeof KyselyModule;
}
