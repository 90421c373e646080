import type { ServerRequest } from './exchange.ts';
import { HttpError } from './responses.ts';

/**
 * Protection against DNS rebinding: a web page on `evil.example` whose name is made to resolve to 127.0.0.1 can
 * reach a loopback server from the victim's browser, but its requests carry `Host: evil.example` and its own
 * `Origin`. Routes that answer browsers or agents (the page, `/mcp`) accept only the hosts the server is meant to be
 * reached by.
 */
export interface HostPolicy {
  /** `Host` header values accepted (`host:port`, lower case); `*` accepts any. */
  hosts: string[];
  /** `Origin` values accepted when a request has one (`http://host:port`); `*` accepts any. */
  origins: string[];
}

/** The bound address and the loopback names, at the bound port; plus anything configured. */
export function defaultHostPolicy(
  boundHost: string,
  port: number,
  extra: { hosts?: string[]; origins?: string[] } = {},
): HostPolicy {
  const names = new Set(['localhost', '127.0.0.1', '[::1]']);
  if (!isWildcard(boundHost))
    names.add(boundHost.includes(':') && !boundHost.startsWith('[') ? `[${boundHost}]` : boundHost);
  const hosts = [...names].map((name) => `${name}:${port}`.toLowerCase());
  if (port === 80) hosts.push(...names);
  const extraHosts = (extra.hosts ?? []).map((host) => host.toLowerCase());
  const allHosts = [...new Set([...hosts, ...extraHosts])];
  const origins = [...allHosts.map((host) => `http://${host}`), ...(extra.origins ?? [])].map((origin) =>
    origin.toLowerCase(),
  );
  return { hosts: allHosts, origins: [...new Set(origins)] };
}

/** Throws 403 unless `Host` is allowed and `Origin`, when sent, is too. */
export function assertAllowedHost(request: ServerRequest, policy: HostPolicy): void {
  const host = request.header('host')?.toLowerCase();
  if (!policy.hosts.includes('*') && (!host || !policy.hosts.includes(host))) {
    throw new HttpError(
      403,
      `Host "${host ?? ''}" is not allowed. Start the server with --allowed-host ${host ?? '<host:port>'} to accept ` +
        `it.`,
      {
        type: 'permission_error',
        code: 'host_not_allowed',
      },
    );
  }
  // Browsers send `Origin` on cross-site requests (and `Origin: null` from sandboxed frames, which is never allowed).
  const origin = request.header('origin')?.toLowerCase();
  if (origin !== undefined && !policy.origins.includes('*') && !policy.origins.includes(origin)) {
    throw new HttpError(
      403,
      `Origin "${origin}" is not allowed. Start the server with --allowed-origin ${origin} to accept it.`,
      {
        type: 'permission_error',
        code: 'origin_not_allowed',
      },
    );
  }
}

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^(::ffff:)?127(\.\d{1,3}){3}$/i.test(host);
}

/**
 * Whether the pages (`/`, `/experiments`) may be served without a key: only on loopback, and not once the server is
 * reached by other names (`--allowed-host`: a proxy's, whose requests all come from loopback); what to log if not.
 */
export function pageAccess(host: string, allowedHosts: readonly string[]): { isPublic: boolean; notice?: string } {
  if (!isLoopback(host))
    return { isPublic: false, notice: 'not on loopback: the workflow page requires an API key too' };
  if (allowedHosts.length > 0)
    return { isPublic: false, notice: '--allowed-host given: the workflow page requires an API key too' };
  return { isPublic: true };
}

/** Headers a reverse proxy adds (nginx, Caddy, Traefik, HAProxy, RFC 7239): a request that has one came through one. */
const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-forwarded-host', 'x-real-ip'];

/**
 * Whether a request comes straight from this machine: its peer is loopback (when the runtime says) and no proxy
 * says it forwarded it. Behind a proxy on the same machine the peer is loopback too, so the headers decide.
 */
export function isDirectLocalRequest(request: ServerRequest): boolean {
  if (request.peer !== undefined && !isLoopback(request.peer)) return false;
  return FORWARDING_HEADERS.every((name) => request.header(name) === undefined);
}

function isWildcard(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '[::]';
}
