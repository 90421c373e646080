import { describe, expect, it } from 'vitest';
import { fromRow, type StoredKey } from '../../src/server/key-material.ts';

/** A key stored before `annotations:write` existed: an admin key (every scope then, no parent) holds the new one. */
describe('keys stored before annotations:write', () => {
  const before = ['chat', 'models', 'deployments:read', 'deployments:write', 'calls:read', 'calls:read:own'];
  const stored = (scopes: string[], parent_id: string | null = null): StoredKey =>
    ({
      id: 'key_1',
      prefix: 'sy-AbCdEfGh',
      name: 'old',
      created_at: '2026-01-01T00:00:00.000Z',
      revoked_at: null,
      scopes: JSON.stringify(scopes),
      allowed_agents: null,
      allowed_models: null,
      expires_at: null,
      parent_id,
    }) as unknown as StoredKey;

  it('an admin key gains it; a child or a narrower key does not', () => {
    const admin = [...before, 'keys:create', 'metrics:read'];
    expect(fromRow(stored(admin)).scopes).toContain('annotations:write');
    const parent = { id: 'key_0', parent_id: null, revoked_at: null, expires_at: null, scopes: null };
    expect(fromRow(stored(admin, 'key_0'), [parent]).scopes).not.toContain('annotations:write');
    expect(fromRow(stored(before)).scopes).toEqual(before);
  });
});
