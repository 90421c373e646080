import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, InvalidRequestError, ModelNotFoundError, RateLimitError } from '../../src/index.ts';
import { startFakeGeminiServer } from '../fake-servers/gemini-server.ts';
import { useFakeOpenAIServer } from '../helpers/openai-env.ts';
import { startTestServer, type TestServer } from '../server/start-test-server.ts';

/**
 * Embeddings: in process against fake OpenAI and Gemini servers through their SDKs, on the simulator, and over
 * `switchyard serve` through the official openai SDK's `embeddings.create`.
 */
const openai = await useFakeOpenAIServer();
const gemini = await startFakeGeminiServer();
const gateway = createGateway({
  env: {},
  retry: { maxRetries: 1, initialDelayMs: 1, maxDelayMs: 5 },
  providers: {
    openai: { apiKey: 'sk-test', baseURL: openai.url },
    google: { apiKey: 'gemini-test', baseURL: gemini.url },
    anthropic: { apiKey: 'sk-ant-test', baseURL: 'http://127.0.0.1:9' },
  },
});
let serve: TestServer;
beforeAll(async () => {
  serve = await startTestServer({ mock: true });
});
afterAll(async () => {
  await Promise.all([serve.stop(), gemini.close()]);
});

describe('createEmbedding through the providers', () => {
  it('OpenAI: a vector per input, usage, cost at the catalog price, a record with the dialect', async () => {
    const response = await gateway.createEmbedding({ model: 'text-embedding-3-small', input: ['abcd', 'efghijkl'] });
    expect(response.object).toBe('list');
    expect(response.data.map((item) => item.embedding)).toEqual([
      [4, 0, 0.5],
      [8, 1, 0.5],
    ]);
    expect(response.usage).toEqual({ prompt_tokens: 3, total_tokens: 3 });
    expect(response.switchyard).toMatchObject({ provider: 'openai', provider_model: 'text-embedding-3-small' });
    expect(response.switchyard.cost_usd).toBeCloseTo((3 * 0.02) / 1e6, 12);
    expect(openai.requests.at(-1)!.body).toEqual({
      model: 'text-embedding-3-small',
      input: ['abcd', 'efghijkl'],
      encoding_format: 'float',
    });
    await gateway.flush();
    const records = (await gateway.calls.list({ dialect: 'embeddings' })).data;
    expect(records.find((record) => record.id === response.switchyard.call_id)).toMatchObject({
      dialect: 'embeddings',
      model: 'text-embedding-3-small',
      status: 'ok',
    });
  });

  it('dimensions go to a model that can shorten; a model that cannot is a 400', async () => {
    const short = await gateway.createEmbedding({ model: 'text-embedding-3-large', input: 'hi', dimensions: 2 });
    expect(short.data[0]!.embedding).toEqual([2, 0]);
    expect(openai.requests.at(-1)!.body.dimensions).toBe(2);
    const error = await gateway
      .createEmbedding({ model: 'text-embedding-ada-002', input: 'hi', dimensions: 256 })
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect((error as InvalidRequestError).param).toBe('dimensions');
  });

  it('base64: little-endian float32s, as OpenAI sends them', async () => {
    const response = await gateway.createEmbedding({
      model: 'text-embedding-3-small',
      input: 'abc',
      encoding_format: 'base64',
    });
    const bytes = Buffer.from(response.data[0]!.embedding as string, 'base64');
    expect([...new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4)]).toEqual([3, 0, 0.5]);
  });

  it('Gemini: batchEmbedContents through @google/genai, usage estimated and said so', async () => {
    const response = await gateway.createEmbedding({
      model: 'gemini-embedding-001',
      input: ['hello', 'hi'],
      dimensions: 3,
    });
    // Shortened vectors made of unit length, as OpenAI's are (Gemini sends [5, 0.5, 0.5] and [2, 0.5, 0.5]).
    const unit = (vector: number[]) => vector.map((value) => value / Math.hypot(...vector));
    expect(response.data.map((item) => item.embedding)).toEqual([unit([5, 0.5, 0.5]), unit([2, 0.5, 0.5])]);
    const sent = gemini.requests.at(-1)!;
    expect(sent.path).toBe('/v1beta/models/gemini-embedding-001:batchEmbedContents');
    expect(sent.body.requests[0]).toMatchObject({ content: { parts: [{ text: 'hello' }] }, outputDimensionality: 3 });
    expect(response.switchyard.warnings.map((warning) => warning.code)).toEqual(['usage_estimated']);
    expect(response.usage.prompt_tokens).toBe(3);
  });

  it('Gemini: more than 100 inputs go in batches of 100 (Google’s limit), the vectors in order', async () => {
    const before = gemini.requests.length;
    const input = Array.from({ length: 250 }, (_, at) => 'x'.repeat(at + 1));
    const response = await gateway.createEmbedding({ model: 'gemini-embedding-001', input });
    expect(response.data.map((item) => item.embedding[0])).toEqual(input.map((text) => text.length));
    expect(response.data.map((item) => item.index)).toEqual(input.map((_, at) => at));
    const sent = gemini.requests.slice(before).map((request) => request.body.requests.length);
    expect(sent).toEqual([100, 100, 50]);
  });

  it('user reaches OpenAI, and is dropped with a warning by Gemini, which takes none', async () => {
    await gateway.createEmbedding({ model: 'text-embedding-3-small', input: 'hi', user: 'u-42' });
    expect(openai.requests.at(-1)!.body.user).toBe('u-42');
    const gemini = await gateway.createEmbedding({ model: 'gemini-embedding-001', input: 'hi', user: 'u-42' });
    expect(gemini.switchyard.warnings).toContainEqual(
      expect.objectContaining({ code: 'unsupported_parameter', param: 'user' }),
    );
  });

  it('dimensions a provider did not honour are said in a warning', async () => {
    openai.enqueue({ embeddingSize: 5 });
    const response = await gateway.createEmbedding({ model: 'openai/text-embed-9', input: 'hi', dimensions: 2 });
    expect(response.data[0]!.embedding).toHaveLength(5);
    expect(response.switchyard.warnings).toContainEqual(
      expect.objectContaining({ code: 'unsupported_parameter', param: 'dimensions' }),
    );
  });

  it('a 429 is retried like any call, with both attempts in the chain', async () => {
    openai.enqueue({ error: { status: 429, message: 'Slow down', type: 'rate_limit_error' } });
    const response = await gateway.createEmbedding({ model: 'text-embedding-3-small', input: 'retry me' });
    expect(response.switchyard.attempts.map((attempt) => attempt.outcome)).toEqual(['rate_limited', 'ok']);
    openai.enqueue(
      { error: { status: 429, message: 'Slow down', type: 'rate_limit_error' } },
      { error: { status: 429, message: 'Slow down', type: 'rate_limit_error' } },
    );
    const error = await gateway
      .createEmbedding({ model: 'text-embedding-3-small', input: 'again' })
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(RateLimitError);
  });

  it('<provider>/<id> reaches an uncatalogued model, its price unknown', async () => {
    const response = await gateway.createEmbedding({ model: 'openai/text-embedding-4-preview', input: 'x' });
    expect(response.switchyard).toMatchObject({ model_known: false, cost_usd: null });
    expect(openai.requests.at(-1)!.body.model).toBe('text-embedding-4-preview');
  });

  it('refuses clearly: a provider without embeddings, an unknown model, token arrays', async () => {
    const anthropic = await gateway
      .createEmbedding({ model: 'anthropic/claude-embed', input: 'x' })
      .catch((thrown: unknown) => thrown);
    expect(anthropic).toBeInstanceOf(InvalidRequestError);
    expect((anthropic as Error).message).toContain('anthropic has no embeddings API');
    const unknown = await gateway.createEmbedding({ model: 'gpt-4o', input: 'x' }).catch((thrown: unknown) => thrown);
    expect(unknown).toBeInstanceOf(ModelNotFoundError);
    expect((unknown as Error).message).toContain('text-embedding-3-small');
    const tokens = await gateway
      .createEmbedding({ model: 'text-embedding-3-small', input: [[1, 2, 3]] as never })
      .catch((thrown: unknown) => thrown);
    expect((tokens as InvalidRequestError).param).toBe('input[0]');
  });
});

describe('the simulator', () => {
  it('answers deterministic unit vectors of the catalog dimensions', async () => {
    const mock = createGateway({ mock: true });
    const first = await mock.createEmbedding({ model: 'text-embedding-3-small', input: ['same', 'other'] });
    const again = await mock.createEmbedding({ model: 'text-embedding-3-small', input: 'same' });
    const [same, other] = first.data.map((item) => item.embedding as number[]);
    expect(same).toHaveLength(1536);
    expect(again.data[0]!.embedding).toEqual(same);
    expect(other).not.toEqual(same);
    expect(Math.hypot(...same!)).toBeCloseTo(1, 5);
  });
});

describe('POST /v1/embeddings on serve, through the openai SDK', () => {
  it('embeddings.create (the SDK asks for base64 and decodes it) gives the simulator vectors', async () => {
    const client = serve.openai();
    const response = await client.embeddings.create({ model: 'text-embedding-3-small', input: ['same'] });
    const inProcess = await createGateway({ mock: true }).createEmbedding({
      model: 'text-embedding-3-small',
      input: 'same',
    });
    const expected = inProcess.data[0]!.embedding as number[];
    expect(response.data[0]!.embedding).toHaveLength(expected.length);
    response.data[0]!.embedding.forEach((value, index) => {
      expect(value).toBeCloseTo(expected[index]!, 6);
    });
    expect(response.usage.prompt_tokens).toBe(1);
  });

  it('errors in the OpenAI shape', async () => {
    const error = await serve
      .openai()
      .embeddings.create({ model: 'no-such-embedder', input: 'x' })
      .catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ status: 404, code: 'model_not_found' });
  });
});

describe('a caller limited to some models', () => {
  it('may embed with an allowed model in its provider form; another model is a 403', async () => {
    const access = { models: ['text-embedding-3-small'] };
    const answer = await gateway.createEmbedding(
      { model: 'openai/text-embedding-3-small', input: 'hello' },
      { access },
    );
    expect(answer.data).toHaveLength(1);
    const refused = await gateway
      .createEmbedding({ model: 'text-embedding-3-large', input: 'hello' }, { access })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 403 });
  });
});
