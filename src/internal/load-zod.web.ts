import type * as Zod from 'zod';
import { zodForWeb } from './zod-web.ts';

/**
 * The web build's zod (tsup.web.ts swaps it for load-zod.ts), the part the core names (zod-web.ts). The features
 * a gateway runs wait for `loadZod()`, an import a page's bundler puts in a chunk of its own; a synchronous function
 * a caller calls itself (`extendCatalog`, `zodResponseFormat`) takes it with `zodAtHand()`, so zod is in a page's
 * bundle only when the page uses one of those.
 */
let loaded: typeof Zod | undefined;

export function zod(): typeof Zod {
  if (!loaded) throw new Error('zod was used before it loaded: a feature checking input awaits loadZod() first.');
  return loaded;
}

export async function loadZod(): Promise<void> {
  // The members themselves, not zod-web.ts: a module both imported (by `zodAtHand`) and import()ed stays in the
  // page's first chunk, even when nothing the page uses imports it.
  const z = await import('./zod-web-members.ts');
  loaded ??= { ...z, z } as unknown as typeof Zod;
}

export function zodAtHand(): void {
  loaded ??= zodForWeb as unknown as typeof Zod;
}
