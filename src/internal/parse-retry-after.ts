/**
 * Milliseconds a provider asked us to wait, from `retry-after-ms`, `retry-after` (seconds or an HTTP date), or a
 * Google `RetryInfo.retryDelay` string such as "7s" / "1.5s". `undefined` when nothing usable was sent.
 */
export function parseRetryAfter(
  headers: { get(name: string): string | null } | undefined,
  retryDelay?: string,
): number | undefined {
  const milliseconds = Number(headers?.get('retry-after-ms') ?? Number.NaN);
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  const retryAfter = headers?.get('retry-after');
  if (retryAfter) {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
    const date = Date.parse(retryAfter);
    if (Number.isFinite(date)) return Math.max(0, date - Date.now());
  }
  const delay = retryDelay ? /^(\d+(?:\.\d+)?)s$/.exec(retryDelay) : null;
  if (delay) return Number(delay[1]) * 1000;
  return undefined;
}
