import { mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type Deployment,
  DeploymentConflictError,
  DeploymentStoreError,
  DeploymentValidationError,
  FileDeploymentStore,
} from '../../src/deployments/index.ts';
import { makeDeployment } from './fixtures.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'switchyard-deployments-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const writeJSON = (name: string, value: unknown) => writeFile(join(dir, name), JSON.stringify(value, null, 2));
const caught = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error as Error & Record<string, any>,
  );

const SUPPORT_YAML = `# Answers support tickets.
id: "support:staging#4"
agent_id: support
environment: staging
number: 4
created_at: "2025-10-20T09:30:00Z"
description: Shorter answers
version:
  model: claude-sonnet-4-5
  temperature: 0.3
  messages:
    - role: system
      content: |
        You answer tickets about {{product}}.
    - role: user
      content: "{{ticket}}"
  output_schema:
    json_schema:
      type: object
      properties:
        answer: { type: string }
      required: [answer]
      additionalProperties: false
`;

describe('FileDeploymentStore', () => {
  it('loads JSON files, lists per agent newest first, and ignores other files', async () => {
    await writeJSON('support-1.json', makeDeployment({ number: 1 }));
    await writeJSON('support-2.json', makeDeployment({ number: 2 }));
    await writeJSON('billing.json', makeDeployment({ agent_id: 'billing', number: 3 }));
    await writeFile(join(dir, 'README.md'), '# not a deployment');
    await writeFile(join(dir, '.draft.json'), '{ broken');
    const store = new FileDeploymentStore(dir);
    expect((await store.get('support:production#2'))?.version.model).toBe('gpt-4o-latest');
    expect(await store.get('nope')).toBeUndefined();
    expect((await store.list({ agent_id: 'support' })).map((d) => d.id)).toEqual([
      'support:production#2',
      'support:production#1',
    ]);
    expect(await store.list()).toHaveLength(3);
  });

  it('loads .yaml and .yml files', async () => {
    await writeFile(join(dir, 'support.yaml'), SUPPORT_YAML);
    await writeFile(join(dir, 'other.yml'), SUPPORT_YAML.replaceAll('support', 'triage'));
    const store = new FileDeploymentStore(dir);
    const deployment = await store.get('support:staging#4');
    expect(deployment?.created_at).toBe('2025-10-20T09:30:00Z');
    expect(deployment?.version.messages[0]).toEqual({
      role: 'system',
      content: 'You answer tickets about {{product}}.\n',
    });
    expect(deployment?.version.output_schema?.json_schema.required).toEqual(['answer']);
    expect((await store.get('triage:staging#4'))?.agent_id).toBe('triage');
  });

  it('names the YAML file and field of an invalid record', async () => {
    await writeFile(join(dir, 'support.yaml'), SUPPORT_YAML.replace('role: user', 'role: customer'));
    const error = await caught(new FileDeploymentStore(dir).list());
    expect(error).toBeInstanceOf(DeploymentValidationError);
    expect(error?.message).toContain(`${join(dir, 'support.yaml')}: version.messages[1].role:`);
  });

  it('names the file and the field of an invalid record', async () => {
    const record = structuredClone(makeDeployment()) as any;
    record.version.messages[0].role = 'robot';
    record.version.temprature = 1;
    await writeJSON('support.json', record);
    const error = await caught(new FileDeploymentStore(dir).get('support:production#1'));
    expect(error).toBeInstanceOf(DeploymentValidationError);
    expect(error?.message).toContain(
      `${join(dir, 'support.json')}: version.messages[0].role: Invalid discriminator value`,
    );
    expect(error?.message).toContain(`${join(dir, 'support.json')}: version.temprature: unknown field`);
    expect(error?.source).toBe(join(dir, 'support.json'));
  });

  it('names the file that is not valid JSON', async () => {
    await writeFile(join(dir, 'broken.json'), '{ "id": ');
    const error = await caught(new FileDeploymentStore(dir).list());
    expect(error).toBeInstanceOf(DeploymentValidationError);
    expect(error?.message).toMatch(new RegExp(`^${escapeRegExp(join(dir, 'broken.json'))}: not valid JSON: `));
  });

  it('rejects one id in two files, naming both', async () => {
    await writeJSON('a.json', makeDeployment());
    await writeJSON('b.json', makeDeployment({}, { temperature: 1 }));
    const error = await caught(new FileDeploymentStore(dir).get('support:production#1'));
    expect(error).toBeInstanceOf(DeploymentStoreError);
    expect(error?.code).toBe('duplicate_deployment_id');
    expect(error?.message).toContain(`defined twice: in ${join(dir, 'a.json')} and in ${join(dir, 'b.json')}`);
  });

  it('reads a file again when its mtime changes, and sees added and removed files', async () => {
    await writeJSON('support.json', makeDeployment({}, {}, { description: 'first' }));
    const store = new FileDeploymentStore(dir);
    expect((await store.get('support:production#1'))?.description).toBe('first');

    await writeJSON('support.json', makeDeployment({}, {}, { description: 'second' }));
    const later = new Date(Date.now() + 5_000);
    await utimes(join(dir, 'support.json'), later, later);
    await writeJSON('new.json', makeDeployment({ number: 2 }));
    expect((await store.get('support:production#1'))?.description).toBe('second');
    expect((await store.get('support:production#2'))?.number).toBe(2);

    await rm(join(dir, 'new.json'));
    expect(await store.get('support:production#2')).toBeUndefined();
  });

  it('does not read an unchanged file again', async () => {
    await writeJSON('support.json', makeDeployment({}, {}, { description: 'cached' }));
    const store = new FileDeploymentStore(dir);
    const first = await store.get('support:production#1');
    const second = await store.get('support:production#1');
    expect(second).toBe(first); // the same object: served from the cache
  });

  it('put writes a new file through a temporary file and leaves nothing behind', async () => {
    const store = new FileDeploymentStore(join(dir, 'nested'));
    await store.put(makeDeployment({ number: 7 }));
    expect(await readdir(join(dir, 'nested'))).toEqual(['support_production_7.json']);
    const written = JSON.parse(await readFile(join(dir, 'nested', 'support_production_7.json'), 'utf8')) as Deployment;
    expect(written).toEqual(makeDeployment({ number: 7 }));
    expect((await store.get('support:production#7'))?.number).toBe(7);
  });

  it('put is a no-op for identical content and a conflict for different content', async () => {
    await writeJSON('hand-written.json', makeDeployment());
    const store = new FileDeploymentStore(dir);
    await store.put(structuredClone(makeDeployment()));
    const error = await caught(store.put(makeDeployment({}, { temperature: 0.5 })));
    expect(error).toBeInstanceOf(DeploymentConflictError);
    expect(error?.message).toContain(join(dir, 'hand-written.json'));
    expect(await readdir(dir)).toEqual(['hand-written.json']);
    expect((await store.get('support:production#1'))?.version.temperature).toBeUndefined();
  });

  it('put never overwrites a file that another id already uses', async () => {
    const store = new FileDeploymentStore(dir);
    await store.put(makeDeployment({ agent_id: 'a_b', number: 1 }));
    const odd = makeDeployment({ id: 'a_b_production_1', agent_id: 'a_b', number: 9 });
    await store.put(odd);
    expect((await readdir(dir)).sort()).toEqual(['a_b_production_1-2.json', 'a_b_production_1.json']);
    expect((await store.get('a_b:production#1'))?.number).toBe(1);
    expect((await store.get('a_b_production_1'))?.number).toBe(9);
  });

  it('an id whose file names another writer took first still finds a name of its own', async () => {
    const store = new FileDeploymentStore(dir);
    // Ids that map to the next version's file names, taken before it: its plain name and any numbered after it.
    for (const taken of [
      'support_production_4',
      ...Array.from({ length: 100 }, (_, at) => `support_production_4-${at + 2}`),
    ])
      await store.put(makeDeployment({ id: taken }));
    const next = makeDeployment({ number: 4 });
    await store.put(next);
    expect(await store.get('support:production#4')).toEqual(next);
  });

  it('concurrent puts of one id whose plain name another id holds write one file', async () => {
    const store = new FileDeploymentStore(dir);
    await store.put(makeDeployment({ id: 'a_b_production_1', agent_id: 'a_b', number: 9 }));
    const odd = makeDeployment({ agent_id: 'a_b', number: 1 });
    await Promise.all([store.put(odd), new FileDeploymentStore(dir).put(structuredClone(odd))]);
    expect((await readdir(dir)).sort()).toEqual(['a_b_production_1-2.json', 'a_b_production_1.json']);
    expect(await store.list()).toHaveLength(2);
  });

  it('concurrent puts of one deployment write one file', async () => {
    const store = new FileDeploymentStore(dir);
    await Promise.all([store.put(makeDeployment()), new FileDeploymentStore(dir).put(makeDeployment())]);
    expect(await readdir(dir)).toEqual(['support_production_1.json']);
  });

  it('says when the directory does not exist', async () => {
    const error = await caught(new FileDeploymentStore(join(dir, 'missing')).list());
    expect(error).toBeInstanceOf(DeploymentStoreError);
    expect(error?.message).toBe(`The deployment directory ${join(dir, 'missing')} does not exist.`);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
