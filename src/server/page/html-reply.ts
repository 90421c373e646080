import type { Reply } from '../exchange.ts';

/** A page of `switchyard serve` (the workflow and experiment pages): HTML that needs nothing but inline styles. */
export function htmlReply(status: number, body: string): Reply {
  return {
    status,
    body,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      // No script, no external asset: the pages are rendered whole on the server.
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-store',
    },
  };
}
