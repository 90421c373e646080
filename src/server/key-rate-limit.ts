import { HttpError } from './responses.ts';

/**
 * Requests per minute per API key, as a token bucket: `perMinute` requests at once, refilled evenly over the minute.
 * Keyed by the id of a key that authenticated, so the map holds at most as many entries as there are keys. One
 * process's count: replicas each count their own share.
 */
export class KeyRateLimit {
  readonly perMinute: number;
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  constructor(perMinute: number) {
    this.perMinute = Math.max(1, Math.floor(perMinute));
  }

  /** Takes one request from the key's bucket, or throws a 429 in the OpenAI shape with `retry-after`. */
  take(keyId: string, now = performance.now()): void {
    const perMs = this.perMinute / 60_000;
    const bucket = this.#buckets.get(keyId) ?? { tokens: this.perMinute, at: now };
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + (now - bucket.at) * perMs);
    bucket.at = now;
    this.#buckets.set(keyId, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return;
    }
    const waitSeconds = Math.ceil((1 - bucket.tokens) / perMs / 1000);
    throw new HttpError(429, `This API key may make ${this.perMinute} requests a minute; retry in ${waitSeconds} s.`, {
      type: 'rate_limit_error',
      code: 'rate_limit_exceeded',
      headers: { 'retry-after': String(waitSeconds) },
    });
  }
}
