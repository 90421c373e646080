import type { CacheControl } from '../../types.ts';

/** `target` with the `cache_control` of `source`, if it has one. */
export function marked<T extends object>(target: T, source: object): T {
  const control = (source as { cache_control?: CacheControl | null }).cache_control;
  if (control)
    Object.assign(target, {
      cache_control: control.ttl ? { type: 'ephemeral', ttl: control.ttl } : { type: 'ephemeral' },
    });
  return target;
}
