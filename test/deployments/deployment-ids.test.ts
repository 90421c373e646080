import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DeploymentValidationError,
  MemoryDeploymentStore,
  resolveDeployment,
  validateDeployment,
} from '../../src/deployments/index.ts';
import { createGateway, InvalidRequestError } from '../../src/index.ts';
import { api, jsonOf, startTestServer, type TestServer } from '../server/start-test-server.ts';
import { makeDeployment } from './fixtures.ts';

/**
 * Deployment ids are shown in tables, logs, pages and error messages, so an id holding NUL,
 * another control character (a terminal escape) or a bidirectional override (which reorders what a reader sees)
 * is refused with a 400 that names the rule: when stored, when looked up, in the HTTP paths.
 */

// biome-ignore lint/suspicious/noControlCharactersInRegex: what must not be left in a message.
const RAW = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const RULE =
  'must not contain control characters (U+0000–U+001F, U+007F–U+009F) or bidirectional formatting characters';
const BAD_IDS = {
  NUL: 'support\u0000:production#1',
  ESC: 'support:production#1\u001b[2J',
  DEL: 'support\u007f:production#1',
  C1: 'support\u009b31m:production#1',
  'RIGHT-TO-LEFT OVERRIDE': 'support:production#1\u202egnp.exe',
  'LEFT-TO-RIGHT EMBEDDING': '\u202asupport:production#1',
  'FIRST STRONG ISOLATE': 'support\u2068:production#1',
  'POP DIRECTIONAL ISOLATE': 'support:production#1\u2069',
};

describe('deployment ids', () => {
  for (const [name, id] of Object.entries(BAD_IDS)) {
    it(`an id with ${name} is refused when stored, naming the rule`, () => {
      const deployment = { ...makeDeployment(), id };
      const error = (() => {
        try {
          validateDeployment(deployment, 'put', 400);
        } catch (thrown) {
          return thrown as DeploymentValidationError;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(DeploymentValidationError);
      expect(error?.status).toBe(400);
      expect(error?.issues.find((issue) => issue.path === 'id')?.message).toContain(RULE);
    });
  }

  it('an agent_id holding such characters is refused too', () => {
    const deployment = { ...makeDeployment(), agent_id: 'sup\u202eport', id: 'odd-id' };
    expect(() => validateDeployment(deployment, 'put', 400)).toThrow(/agent_id: must not contain control/);
  });

  it('a lookup of such an id is a 400 naming the rule, with the id shown escaped', async () => {
    const gateway = createGateway({ mock: true, deployments: new MemoryDeploymentStore([makeDeployment()]) });
    for (const id of Object.values(BAD_IDS)) {
      const error = await gateway
        .createCompletion({ model: `switchyard/deployment/${id}`, input: { product: 'A', ticket: 'b' } })
        .then(
          () => undefined,
          (thrown: unknown) => thrown as InvalidRequestError,
        );
      expect(error).toBeInstanceOf(InvalidRequestError);
      expect(error).toMatchObject({ status: 400, code: 'invalid_deployment_id', param: 'model' });
      expect(error?.message).toContain(RULE);
      expect(error?.message).not.toMatch(RAW);
    }
    // Ids of any other shape are still looked up: an unknown one is a 404.
    await expect(
      gateway.createCompletion({ model: 'switchyard/deployment/support@ünïcödé#1', input: {} }),
    ).rejects.toMatchObject({ status: 404, code: 'deployment_not_found' });
    await gateway.close();
  });
});

describe('deployment ids through serve', () => {
  let test: TestServer;
  beforeAll(async () => {
    test = await startTestServer();
  });
  afterAll(() => test?.stop());

  it('PUT and GET of such an id are 400s naming the rule; a call to one is a 400 too', async () => {
    for (const id of Object.values(BAD_IDS)) {
      const path = `/v1/deployments/${encodeURIComponent(id)}`;
      const put = await api(test, path, { method: 'PUT', body: { ...makeDeployment(), id } });
      expect(put.status).toBe(400);
      const putBody = await jsonOf(put);
      expect(putBody.error.message).toContain(RULE);
      expect(putBody.error.message).not.toMatch(RAW);

      const get = await api(test, path);
      expect(get.status).toBe(400);
      expect((await jsonOf(get)).error).toMatchObject({ code: 'invalid_deployment_id', type: 'invalid_request_error' });

      const call = await test
        .openai()
        .chat.completions.create({
          model: `switchyard/deployment/${id}`,
          input: { product: 'A', ticket: 'b' },
        } as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming)
        .then(
          () => undefined,
          (thrown: unknown) => thrown,
        );
      expect(call).toBeInstanceOf(OpenAI.BadRequestError);
      expect(call).toMatchObject({ code: 'invalid_deployment_id', param: 'model' });
    }
    expect((await jsonOf(await api(test, '/v1/deployments'))).data).toEqual([]);
  });
});

describe('an id past 512 characters', () => {
  it('is a 400 before any store is asked, its message showing the id cut short', async () => {
    let asked = 0;
    const store = {
      get: async () => {
        asked += 1;
        return undefined;
      },
      list: async () => [],
    };
    const error = await resolveDeployment(store, 'a'.repeat(2_000_000)).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 400, code: 'invalid_deployment_id', param: 'model' });
    expect((error as Error).message.length).toBeLessThan(200);
    expect(asked).toBe(0);
    expect(await resolveDeployment(store, 'a'.repeat(512)).catch((caught: unknown) => caught)).toMatchObject({
      status: 404,
    });
  });
});
