import type * as Zod from 'zod';
import * as wholeZod from 'zod';

/**
 * The web build's zod (tsup.web.ts swaps it for load-zod.ts). The features a gateway runs wait for `loadZod()`:
 * the part of zod the core names (zod-web.ts), imported then, a chunk of its own that a page loads when a feature
 * first checks input. A synchronous function a caller calls itself (`extendCatalog`, `zodResponseFormat`) takes
 * the whole of zod, as a page using one imports it (`import { z } from 'zod'`), with `zodAtHand()`: a page that uses
 * neither never carries it.
 */
let loaded: typeof Zod | undefined;

export function zod(): typeof Zod {
  if (!loaded) throw new Error('zod was used before it loaded: a feature checking input awaits loadZod() first.');
  return loaded;
}

export async function loadZod(): Promise<void> {
  loaded ??= (await import('./zod-web.ts')).zodForWeb as unknown as typeof Zod;
}

export function zodAtHand(): void {
  loaded ??= wholeZod;
}
