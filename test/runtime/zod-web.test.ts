import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { zodForWeb } from '../../src/internal/zod-web.ts';

/**
 * The web build bundles only the members of zod the core names (src/internal/zod-web.ts): every `z.<member>` of a
 * core file that loads zod must be there, or that feature would fail in Workers and browsers alone.
 */
// The core as the web build has it: zod's named part, imported when a feature first waits for it (loadZod).
vi.mock('../../src/internal/load-zod.ts', () => import('../../src/internal/load-zod.web.ts'));

const src = resolve(import.meta.dirname, '../../src');
const files = (readdirSync(src, { recursive: true }) as string[])
  .filter((file) => file.endsWith('.ts') && !file.startsWith('server/') && !file.startsWith('cli'))
  .map((file) => readFileSync(join(src, file), 'utf8'))
  .filter((text) => /import \{[^}]*\bzod\b[^}]*\} from '[./]+internal\/load-zod\.ts'/.test(text));

describe('zod in the web build', () => {
  it('has every member the core uses', () => {
    expect(files.length).toBeGreaterThan(3);
    const used = new Set(files.flatMap((text) => [...text.matchAll(/\bz\.([A-Za-z]+)\b/g)].map((match) => match[1]!)));
    expect([...used].filter((member) => !(member in zodForWeb.z))).toEqual([]);
    expect(typeof zodForWeb.toJSONSchema).toBe('function');
  });

  it('checks deployments, catalog rows and call queries with it, as on Node, once loaded', async () => {
    const { loadZod, zod } = await import('../../src/internal/load-zod.ts');
    expect(() => zod()).toThrow(/before it loaded/);
    await loadZod();
    const { validateDeployment } = await import('../../src/deployments/validate-deployment.ts');
    const { catalogSchemas } = await import('../../src/catalog/catalog-schema.ts');
    const { callQuerySchemas } = await import('../../src/records/call-query-schema.ts');
    const { annotationSchemas } = await import('../../src/annotations/annotation-schema.ts');
    const { experimentSchemas } = await import('../../src/experiments/experiment-schema.ts');
    const catalog = JSON.parse(readFileSync(join(src, 'catalog/models.json'), 'utf8'));
    const deployment = {
      id: 'greeter:production#1',
      agent_id: 'greeter',
      environment: 'production',
      number: 1,
      created_at: '2026-11-01T00:00:00Z',
      version: { model: 'claude-sonnet-latest', messages: [{ role: 'user', content: 'Greet {{name}}.' }] },
    };
    expect(validateDeployment(deployment, 'test').id).toBe('greeter:production#1');
    expect(() => validateDeployment({ ...deployment, number: 'one' }, 'test')).toThrow(/number/);
    expect(catalogSchemas().modelEntry.safeParse(catalog.models[0]).success).toBe(true);
    expect(catalogSchemas().modelEntry.safeParse({ ...catalog.models[0], id: 7 }).success).toBe(false);
    expect(Object.keys(callQuerySchemas()).length).toBeGreaterThan(0);
    expect(Object.keys(annotationSchemas()).length).toBeGreaterThan(0);
    expect(Object.keys(experimentSchemas()).length).toBeGreaterThan(0);
  });
});
