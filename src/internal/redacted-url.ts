import { redactUrlCredentials } from './redact.ts';

/**
 * One URL given as a setting (a database's, Redis's, a deployment store's), its credentials redacted however they are
 * spelled: everything before the last `@` of its authority (a password may hold quotes, angle brackets or spaces,
 * which end the free-text pattern), and `?password=`.
 */
export function redactedUrl(url: string): string {
  return redactUrlCredentials(url.replace(SETTING_USERINFO, '$1[redacted]@'));
}
const SETTING_USERINFO = /^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i;
