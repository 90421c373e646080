import { describe, expect, it } from 'vitest';
import { BudgetExceededError, createGateway, LimitExceededError } from '../../src/index.ts';
import { createMockProvider } from '../../src/testing/index.ts';

// gpt-4o-mini: 10,000 tokens in and 10,000 out is $0.0075 and 20,000 tokens a call.
const costly = () =>
  createMockProvider({
    respond: () => ({ content: 'Done.', usage: { prompt_tokens: 10_000, completion_tokens: 10_000 } }),
  });
const ask = (metadata: Record<string, string> = {}) => ({
  model: 'gpt-4o-mini',
  messages: [{ role: 'user' as const, content: 'Continue.' }],
  metadata,
});
const as = (keyId: string, ...ancestors: string[]) => ({ access: { keyId, ancestors } });
const perKey = (usd: number) => ({ rules: [{ scope: 'key' as const, usd, window: 'day' as const }] });

describe('children share their ancestors’ limits', () => {
  it('a parent at its budget mints a child: the child’s first call is refused, naming the parent', async () => {
    const gateway = createGateway({ mock: costly(), budgets: perKey(0.01) });
    await gateway.createCompletion(ask(), as('parent'));
    await gateway.createCompletion(ask(), as('parent'));
    const refusal = await gateway.createCompletion(ask(), as('child', 'parent')).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(BudgetExceededError);
    expect((refusal as Error).message).toContain('the key "parent" has spent its budget of $0.01 per day');
    // A grandchild too; a key of another lineage is not touched.
    await expect(gateway.createCompletion(ask(), as('grandchild', 'child', 'parent'))).rejects.toThrow('"parent"');
    await expect(gateway.createCompletion(ask(), as('stranger'))).resolves.toBeTruthy();
  });

  it('a child’s spend counts against its parent and its siblings’ shared parent', async () => {
    const gateway = createGateway({ mock: costly(), budgets: perKey(0.01) });
    await gateway.createCompletion(ask(), as('child-a', 'parent'));
    await gateway.createCompletion(ask(), as('child-b', 'parent'));
    // Each child spent $0.0075, under its own $0.01; the parent has spent $0.015.
    await expect(gateway.createCompletion(ask(), as('parent'))).rejects.toBeInstanceOf(BudgetExceededError);
    await expect(gateway.createCompletion(ask(), as('child-a', 'parent'))).rejects.toThrow('"parent"');
  });

  it('token limits count the whole lineage too', async () => {
    const gateway = createGateway({
      mock: costly(),
      budgets: { rules: [{ scope: 'key', tokens: 30_000, window: 'minute' }] },
    });
    await gateway.createCompletion(ask(), as('child', 'parent'));
    await gateway.createCompletion(ask(), as('other-child', 'parent'));
    const refusal = await gateway.createCompletion(ask(), as('parent')).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(LimitExceededError);
    expect((refusal as Error).message).toContain('the key "parent" has used its 30000 tokens per minute');
  });

  it('metadata.api_key_id alone (in-process, without access) still counts, once beside the lineage', async () => {
    const gateway = createGateway({ mock: costly(), budgets: perKey(0.01) });
    await gateway.createCompletion(ask({ api_key_id: 'legacy' }));
    await gateway.createCompletion(ask({ api_key_id: 'legacy' }));
    await expect(gateway.createCompletion(ask({ api_key_id: 'legacy' }))).rejects.toBeInstanceOf(BudgetExceededError);
    // The same key in metadata and in access is one budget, charged once a call.
    const once = createGateway({ mock: costly(), budgets: perKey(0.01) });
    await once.createCompletion(ask({ api_key_id: 'k' }), as('k'));
    await expect(once.createCompletion(ask({ api_key_id: 'k' }), as('k'))).resolves.toBeTruthy();
  });

  it('embeddings count against the lineage as well', async () => {
    const gateway = createGateway({
      mock: true,
      budgets: { rules: [{ scope: 'key', tokens: 10, window: 'minute' }] },
    });
    await gateway.createEmbedding({ model: 'text-embedding-3-small', input: 'a'.repeat(200) }, as('child', 'parent'));
    await expect(
      gateway.createEmbedding({ model: 'text-embedding-3-small', input: 'b' }, as('parent')),
    ).rejects.toBeInstanceOf(LimitExceededError);
  });
});
