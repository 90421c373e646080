import { describe, expect, it } from 'vitest';
import { createGateway, PermissionDeniedError, type SwitchyardError } from '../../src/index.ts';

/** The same limits in-process, through `CompletionOptions.access`, for applications that embed the gateway. */
describe('CompletionOptions.access in-process', () => {
  const gateway = createGateway({ mock: true });

  it('attributes calls to the caller and lets only it continue its responses', async () => {
    const first = await gateway.createResponse(
      { model: 'gpt-4o-mini', input: 'remember 42' },
      { access: { keyId: 'a' } },
    );
    await gateway.flush();
    const record = (await gateway.calls.list({ limit: 1 })).data[0]!;
    expect(record.metadata.api_key_id).toBe('a');
    const again = await gateway.createResponse(
      { model: 'gpt-4o-mini', input: 'and?', previous_response_id: first.id },
      { access: { keyId: 'a' } },
    );
    expect(again.id).not.toBe(first.id);
    const stolen = await gateway
      .createResponse(
        { model: 'gpt-4o-mini', input: 'and?', previous_response_id: first.id },
        { access: { keyId: 'b' } },
      )
      .catch((error: SwitchyardError) => error);
    expect((stolen as SwitchyardError).status).toBe(404);
    await expect(
      gateway.createCompletion(
        { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], metadata: { api_key_id: 'a' } },
        { access: { keyId: 'b' } },
      ),
    ).rejects.toBeInstanceOf(PermissionDeniedError);
  });

  it('refuses an agent or a model outside the caller\u2019s, before any provider is asked', async () => {
    const access = { agents: ['x'], models: ['gpt-4o-mini'] };
    const ask = (model: string, agent: string) =>
      gateway.createCompletion(
        { model, messages: [{ role: 'user', content: 'hi' }], metadata: { agent_id: agent } },
        { access },
      );
    await expect(ask('gpt-4o-mini', 'x')).resolves.toBeDefined();
    await expect(ask('gpt-4o-mini', 'y')).rejects.toBeInstanceOf(PermissionDeniedError);
    await expect(ask('claude-sonnet-4-5', 'x')).rejects.toBeInstanceOf(PermissionDeniedError);
    await expect(ask('x/claude-sonnet-4-5', 'x')).rejects.toBeInstanceOf(PermissionDeniedError);
  });
});

describe('embeddings and media calls in-process', () => {
  const gateway = createGateway({ mock: true });

  it('are attributed to the caller’s key, and naming another key is a 403', async () => {
    const embedded = await gateway.createEmbedding(
      { model: 'text-embedding-3-small', input: 'hi' },
      { access: { keyId: 'b' } },
    );
    const image = await gateway.createImage(
      { model: 'gpt-image-1-mini', prompt: 'a kite' },
      { access: { keyId: 'b' } },
    );
    await gateway.flush();
    for (const id of [embedded.switchyard.call_id, image.switchyard.call_id])
      expect((await gateway.calls.get!(id))?.metadata.api_key_id).toBe('b');
    await expect(
      gateway.createEmbedding(
        { model: 'text-embedding-3-small', input: 'hi', metadata: { api_key_id: 'a' } },
        { access: { keyId: 'b' } },
      ),
    ).rejects.toBeInstanceOf(PermissionDeniedError);
    await expect(
      gateway.createImage(
        { model: 'gpt-image-1-mini', prompt: 'a kite', metadata: { api_key_id: 'a' } },
        { access: { keyId: 'b' } },
      ),
    ).rejects.toBeInstanceOf(PermissionDeniedError);
  });
});
