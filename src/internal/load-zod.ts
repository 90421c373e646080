import type * as Zod from 'zod';
import { lazyRequire } from './lazy-require.ts';

/**
 * zod, for checking what callers give (catalog rows, call queries, annotations, experiments): loaded on first use,
 * never by importing the package (~200 ms on Node). The web build (load-zod.web.ts) imports it when a feature that
 * checks input first runs, a chunk of its own, so a page that only makes calls never loads it.
 */
export const zod = lazyRequire<typeof Zod>('zod');

/** Waits until `zod()` can be called, in the features' asynchronous paths: on Node it loads when first called. */
export async function loadZod(): Promise<void> {}

/** Makes `zod()` callable now, for a synchronous function a caller calls itself (`extendCatalog`): nothing on Node. */
export function zodAtHand(): void {}
