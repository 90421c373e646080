import { describe, expect, it } from 'vitest';
import { SwitchyardError } from '../../src/errors.ts';
import { createGateway } from '../../src/gateway.ts';
import { ADMIN_GRANT } from '../../src/server/key-scopes.ts';
import { MockProvider } from '../../src/testing/index.ts';
import { api, startTestServer } from '../server/start-test-server.ts';

/**
 * `previous_response_id` continues only the caller's own responses (another key's is not found, exactly as an id
 * that does not exist), and a chain of turns stays within `maxRenderedBytes`: the conversation it loads plus the
 * new input, refused with a 400 before anything is sent.
 */
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (error: unknown) => {
      expect(error).toBeInstanceOf(SwitchyardError);
      const { status, type, code, param, message } = error as SwitchyardError;
      return { status, type, code, param, message };
    },
  );

/** The options `switchyard serve` gives a call made with the key `keyId`: its access, and the record's key id. */
const as = (keyId: string) => ({ access: { keyId }, metadata: { api_key_id: keyId } });

describe('previous_response_id belongs to its key', () => {
  const gateway = createGateway({ mock: true, env: {} });
  const model = 'gpt-4o-latest';

  it("answers another key's response exactly as a response that does not exist: a 404", async () => {
    const first = await gateway.createResponse({ model, input: 'secret plans' }, as('a'));
    const unknownId = `resp_${'0'.repeat(32)}`;
    const notYours = await failure(
      gateway.createResponse({ model, input: 'and?', previous_response_id: first.id }, as('b')),
    );
    const unknown = await failure(
      gateway.createResponse({ model, input: 'and?', previous_response_id: unknownId }, as('b')),
    );
    const malformed = await failure(
      gateway.createResponse({ model, input: 'and?', previous_response_id: 'resp_x' }, as('b')),
    );
    expect(notYours).toMatchObject({
      status: 404,
      type: 'invalid_request_error',
      code: 'previous_response_not_found',
      param: 'previous_response_id',
    });
    // The same answer, but for the id it names: nothing tells that the first one exists.
    expect({ ...notYours, message: notYours.message.replace(first.id, 'ID') }).toEqual({
      ...unknown,
      message: unknown.message.replace(unknownId, 'ID'),
    });
    expect({ ...malformed, message: malformed.message.replace('resp_x', 'ID') }).toEqual({
      ...unknown,
      message: unknown.message.replace(unknownId, 'ID'),
    });
    expect(notYours.message).not.toContain('secret');
  });

  it('continues its own key’s response, and any response in process without access limits', async () => {
    const first = await gateway.createResponse({ model, input: 'one' }, as('a'));
    const own = await gateway.createResponse({ model, input: 'two', previous_response_id: first.id }, as('a'));
    expect(own.previous_response_id).toBe(first.id);
    const open = await gateway.createResponse({ model, input: 'three', previous_response_id: own.id });
    expect(open.status).toBe('completed');
  });

  it("follows the caller's own mayReadCall (a parent key reading its children's calls)", async () => {
    const child = await gateway.createResponse({ model, input: 'child' }, as('child'));
    const access = { keyId: 'parent', mayReadCall: () => true };
    const parent = await gateway.createResponse({ model, input: 'on', previous_response_id: child.id }, { access });
    expect(parent.status).toBe('completed');
    const refused = await failure(
      gateway.createResponse(
        { model, input: 'on', previous_response_id: child.id },
        { access: { keyId: 'parent', mayReadCall: () => false } },
      ),
    );
    expect(refused.status).toBe(404);
  });
});

describe('previous_response_id over HTTP', () => {
  it("is a 404 in OpenAI's shape for another key's response (no calls:read), as for an unknown one", async () => {
    const server = await startTestServer();
    try {
      // A key that may only chat: it reads no call but its own.
      const grant = { ...ADMIN_GRANT, scopes: ['chat' as const] };
      const other = (await server.server.keys.create('other', { grant })).key;
      const first = await server.openai().responses.create({ model: 'gpt-4o-latest', input: 'mine' });
      const answers = await Promise.all(
        [first.id, `resp_${'f'.repeat(32)}`].map(async (id) => {
          const response = await api(server, '/v1/responses', {
            key: other,
            body: { model: 'gpt-4o-latest', input: 'yours?', previous_response_id: id },
          });
          const body = (await response.json()) as { error: Record<string, unknown> };
          return { status: response.status, ...body.error, message: String(body.error.message).replace(id, 'ID') };
        }),
      );
      expect(answers[0]).toMatchObject({ status: 404, code: 'previous_response_not_found' });
      expect(answers[0]).toEqual(answers[1]);
      const own = await server
        .openai()
        .responses.create({ model: 'gpt-4o-latest', input: 'on', previous_response_id: first.id });
      expect(own.status).toBe('completed');
    } finally {
      await server.stop();
    }
  });
});

describe('previous_response_id chains are bounded', () => {
  it('refuses a turn whose conversation and input pass maxRenderedBytes, before anything is sent', async () => {
    const mock = new MockProvider();
    const limit = 64 * 1024;
    const gateway = createGateway({ mock, env: {}, maxRenderedBytes: limit });
    const input = 'x'.repeat(25 * 1024);
    const first = await gateway.createResponse({ model: 'gpt-4o-latest', input });
    const second = await gateway.createResponse({ model: 'gpt-4o-latest', input, previous_response_id: first.id });
    expect(second.status).toBe('completed');
    const sent = mock.calls.length;
    const third = await failure(
      gateway.createResponse({ model: 'gpt-4o-latest', input, previous_response_id: second.id }),
    );
    expect(third).toMatchObject({ status: 400, code: 'conversation_too_large', param: 'previous_response_id' });
    expect(third.message).toContain(`${limit} bytes`);
    expect(mock.calls.length).toBe(sent);
    // A short turn still continues the same conversation.
    const short = await gateway.createResponse({ model: 'gpt-4o-latest', input: 'ok', previous_response_id: first.id });
    expect(short.status).toBe('completed');
  });

  it('counts the instructions of the new turn too', async () => {
    const gateway = createGateway({ mock: true, env: {}, maxRenderedBytes: 16 * 1024 });
    const first = await gateway.createResponse({ model: 'gpt-4o-latest', input: 'x'.repeat(6 * 1024) });
    const refused = await failure(
      gateway.createResponse({
        model: 'gpt-4o-latest',
        input: 'more',
        instructions: 'y'.repeat(10 * 1024),
        previous_response_id: first.id,
      }),
    );
    expect(refused.code).toBe('conversation_too_large');
  });
});

describe('a record stored cut short', () => {
  it('is not continued: a 400 saying why, nothing sent', async () => {
    const gateway = createGateway({ mock: true, env: {}, records: { maxTextLength: 100 } });
    try {
      const first = await gateway.createResponse({ model: 'gpt-4o-latest', input: 'x'.repeat(500) });
      const error = await failure(
        gateway.createResponse({ model: 'gpt-4o-latest', input: 'and?', previous_response_id: first.id }),
      );
      expect(error).toMatchObject({ status: 400, code: 'previous_response_not_found', param: 'previous_response_id' });
      expect(error.message).toContain('cut short');
    } finally {
      await gateway.close();
    }
  });
});

describe('a caller that leaves while its previous response is looked for', () => {
  it('is not waited for: the look ends with it', async () => {
    const gateway = createGateway({ mock: true, env: {}, records: { sharedWithinMs: 30_000 } });
    try {
      const started = Date.now();
      const error = await failure(
        gateway.createResponse(
          { model: 'gpt-4o-latest', input: 'and?', previous_response_id: `resp_${'0'.repeat(32)}` },
          { signal: AbortSignal.timeout(200) },
        ),
      );
      expect(error.status).toBe(404);
      // Far below the 30 s another process's record is waited for.
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      await gateway.close();
    }
  });
});
