import { describe, expect, it } from 'vitest';
import { redactSecrets, redactUrlCredentials, urlCredentials } from '../../src/internal/redact.ts';
import { redactedUrl } from '../../src/internal/redacted-url.ts';

/**
 * Database and Redis URLs reach the startup log, errors and /v1/health redacted. `pg` and `ioredis` also take the
 * password as a query parameter (`?password=`, pg's `sslpassword`), and `pg` lets it override the userinfo's.
 */
describe('a connection URL in a log line', () => {
  it('loses its userinfo', () => {
    expect(redactUrlCredentials('postgres://app:s3cret@db/app')).toBe('postgres://[redacted]@db/app');
  });

  it('loses a password given as a query parameter, and keeps the rest of the query', () => {
    const url = 'postgres://app@db/app?sslmode=require&password=s3cret&sslpassword=k3y-pass&application_name=sy';
    const redacted = redactUrlCredentials(url);
    expect(redacted).not.toContain('s3cret');
    expect(redacted).not.toContain('k3y-pass');
    expect(redacted).toContain('sslmode=require');
    expect(redacted).toContain('application_name=sy');
    expect(redactUrlCredentials('redis://db:6379?password=r3dis-pass')).not.toContain('r3dis-pass');
    expect(redactSecrets(`could not connect to ${url}`, [])).not.toContain('s3cret');
  });

  it('names a query parameter password among its credentials, decoded, to be redacted where it appears alone', () => {
    expect(urlCredentials('postgres://db/app?password=p%40ss%20word')).toEqual(expect.arrayContaining(['p@ss word']));
  });
});

describe('one URL given as a setting', () => {
  it('loses its userinfo whatever characters the password holds (quotes, angle brackets, spaces)', () => {
    for (const password of ["it's<x>", 'a"b', 'back\\slash', 'sp ace', 'at@sign'])
      expect(redactedUrl(`postgres://app:${password}@db:5432/app?sslmode=require`), password).toBe(
        'postgres://[redacted]@db:5432/app?sslmode=require',
      );
    expect(redactedUrl('redis://:pw@cache:6379/0?password=other')).toBe(
      'redis://[redacted]@cache:6379/0?password=[redacted]',
    );
    expect(redactedUrl('/var/lib/switchyard.sqlite')).toBe('/var/lib/switchyard.sqlite');
  });
});
