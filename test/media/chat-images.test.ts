import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { worstCost } from '../../src/budgets/estimate-cost.ts';
import { MemorySink } from '../../src/entries/stores.ts';
import {
  type CompletionChunk,
  type CompletionResponse,
  createGateway,
  type GatewayOptions,
  UnsupportedParameterError,
} from '../../src/index.ts';
import { computeCost } from '../../src/records/compute-cost.ts';
import { FAKE_PNG_BASE64, type FakeGeminiServer, startFakeGeminiServer } from '../fake-servers/gemini-server.ts';
import { collect } from '../helpers/chunks.ts';
import { decodePng } from '../server/decode-png.ts';

/**
 * Images in chat (issue 39 item 3): `modalities: ["text", "image"]` on Gemini's image model through the real
 * `@google/genai` SDK against the fake Gemini server, the simulator's picture, and the models that cannot answer
 * with images (a warning, an error under strict). Prices are the catalog's: gemini-2.5-flash-image bills image
 * tokens at $30 per 1M and text at $2.50.
 */
let server: FakeGeminiServer;
beforeAll(async () => {
  server = await startFakeGeminiServer();
});
afterAll(() => server.close());
afterEach(() => server.reset());

const draw = [{ role: 'user' as const, content: 'Draw a red square' }];
const request = { model: 'gemini-2.5-flash-image', messages: draw, modalities: ['text' as const, 'image' as const] };

function gateway(sink = new MemorySink(), options: Partial<GatewayOptions> = {}) {
  return createGateway({
    env: {},
    retry: { maxRetries: 0 },
    providers: { google: { apiKey: 'AIzaSyFakeKeyForTests0123456789', baseURL: server.url } },
    records: { sinks: [sink] },
    ...options,
  });
}

/** 12 prompt tokens at $0.30, 6 text tokens at $2.50 and 1290 image tokens at $30, per 1M. */
const EXPECTED_COST = (12 * 0.3 + 6 * 2.5 + 1290 * 30) / 1e6;
const PNG_BYTES = Buffer.from(FAKE_PNG_BASE64, 'base64').length;

function pngOf(url: string) {
  const prefix = 'data:image/png;base64,';
  expect(url.startsWith(prefix)).toBe(true);
  return decodePng(Buffer.from(url.slice(prefix.length), 'base64'));
}

describe('images in chat from Gemini', () => {
  it('asks for responseModalities TEXT and IMAGE, answers message.images, bills image tokens apart', async () => {
    const sink = new MemorySink();
    const client = gateway(sink);
    const response = (await client.createCompletion(request)) as CompletionResponse;
    expect(server.requests[0]!.body.generationConfig.responseModalities).toEqual(['TEXT', 'IMAGE']);
    const message = response.choices[0]!.message;
    expect(message.content).toBe('A picture from fake gemini-2.5-flash-image');
    expect(message.images).toEqual([
      { type: 'image_url', image_url: { url: `data:image/png;base64,${FAKE_PNG_BASE64}` } },
    ]);
    expect(pngOf(message.images![0]!.image_url.url)).toMatchObject({ width: 2, height: 2 });
    expect(response.usage?.completion_tokens_details).toMatchObject({ image_tokens: 1290 });
    expect(response.switchyard.cost_usd).toBeCloseTo(EXPECTED_COST, 9);
    expect(response.switchyard.warnings).toEqual([]);

    await client.flush();
    const [record] = sink.records();
    // The record keeps each image's type and size, never its bytes.
    expect(record!.output?.images).toEqual([{ media_type: 'image/png', bytes: PNG_BYTES }]);
    expect(JSON.stringify(record)).not.toContain(FAKE_PNG_BASE64);
    expect(record!.cost_usd).toBeCloseTo(EXPECTED_COST, 9);
    await client.close();
  });

  it('streams each image whole in a delta carrying images, then bills and records it as the whole answer', async () => {
    const sink = new MemorySink();
    const client = gateway(sink);
    const stream = await client.createCompletion({ ...request, stream: true, stream_options: { include_usage: true } });
    const chunks: CompletionChunk[] = await collect(stream);
    const images = chunks.flatMap((chunk) => chunk.choices[0]?.delta.images ?? []);
    expect(images).toEqual([{ type: 'image_url', image_url: { url: `data:image/png;base64,${FAKE_PNG_BASE64}` } }]);
    expect(server.requests[0]!.body.generationConfig.responseModalities).toEqual(['TEXT', 'IMAGE']);
    expect(stream.switchyard.cost_usd).toBeCloseTo(EXPECTED_COST, 9);
    await client.flush();
    expect(sink.records()[0]!.output?.images).toEqual([{ media_type: 'image/png', bytes: PNG_BYTES }]);
    await client.close();
  });

  it('sends an answered image back as inlineData, for the model to edit it', async () => {
    const client = gateway();
    const first = (await client.createCompletion(request)) as CompletionResponse;
    await client.createCompletion({
      ...request,
      messages: [...draw, first.choices[0]!.message, { role: 'user', content: 'Make it blue' }],
    });
    const contents = server.requests[1]!.body.contents;
    expect(contents[1].parts).toEqual([
      { text: 'A picture from fake gemini-2.5-flash-image' },
      { inlineData: { mimeType: 'image/png', data: FAKE_PNG_BASE64 } },
    ]);
    await client.close();
  });
});

describe('models that answer only in text', () => {
  it('drop "image" from modalities with a warning, and it is an error under strict', async () => {
    const client = createGateway({ mock: true });
    for (const model of ['gpt-4o-latest', 'claude-haiku-4-5', 'gemini-2.5-flash']) {
      const response = (await client.createCompletion({ ...request, model })) as CompletionResponse;
      expect(response.choices[0]!.message.images).toBeUndefined();
      expect(response.switchyard.warnings).toContainEqual(
        expect.objectContaining({ code: 'unsupported_parameter', param: 'modalities' }),
      );
      // Only "text" was left: nothing is sent, and no provider warns about it a second time.
      expect(response.switchyard.warnings.filter((warning) => warning.param === 'modalities')).toHaveLength(1);
    }
    const strict = createGateway({ mock: true, strict: true });
    const error = await strict.createCompletion({ ...request, model: 'gpt-4o-latest' }).catch((caught) => caught);
    expect(error).toBeInstanceOf(UnsupportedParameterError);
    expect(error.param).toBe('modalities');
  });

  it('refuse a modality nobody has (400 naming the parameter)', async () => {
    const client = createGateway({ mock: true });
    const bad = { ...request, modalities: ['text', 'video'] } as unknown as typeof request;
    await expect(client.createCompletion(bad)).rejects.toMatchObject({ status: 400, param: 'modalities' });
  });
});

describe('the simulator', () => {
  it('answers an image model asked for images with a real PNG, billed as image tokens', async () => {
    const client = createGateway({ mock: true });
    const response = (await client.createCompletion(request)) as CompletionResponse;
    const png = pngOf(response.choices[0]!.message.images![0]!.image_url.url);
    expect([png.width, png.height]).toEqual([64, 64]);
    // The same prompt draws the same picture; another prompt another one.
    const again = (await client.createCompletion(request)) as CompletionResponse;
    expect(again.choices[0]!.message.images).toEqual(response.choices[0]!.message.images);
    const other = (await client.createCompletion({
      ...request,
      messages: [{ role: 'user', content: 'A green circle' }],
    })) as CompletionResponse;
    expect(other.choices[0]!.message.images).not.toEqual(response.choices[0]!.message.images);
    expect(response.usage?.completion_tokens_details).toMatchObject({ image_tokens: 1290 });
    expect(response.switchyard.cost_usd).toBeGreaterThan((1290 * 30) / 1e6);

    const stream = await client.createCompletion({ ...request, stream: true });
    const streamed = (await collect(stream)).flatMap((chunk) => chunk.choices[0]?.delta.images ?? []);
    expect(streamed).toEqual(response.choices[0]!.message.images);
  });

  it('answers no image when the request does not ask for one', async () => {
    const response = (await createGateway({ mock: true }).createCompletion({
      model: 'gemini-2.5-flash-image',
      messages: draw,
    })) as CompletionResponse;
    expect(response.choices[0]!.message.images).toBeUndefined();
  });
});

describe('the price of image tokens', () => {
  const usage = {
    prompt_tokens: 10,
    completion_tokens: 1300,
    completion_tokens_details: { reasoning_tokens: 0, image_tokens: 1290 },
  };
  it('bills image tokens at output_image and the rest of the answer at output', () => {
    const pricing = { input: 0.3, output: 2.5, output_image: 30, cached_input: 0.3 };
    expect(computeCost(usage, pricing)).toBeCloseTo((10 * 0.3 + 10 * 2.5 + 1290 * 30) / 1e6, 9);
  });
  it('is unknown (null), never the text rate, when the offering has no image price', () => {
    expect(computeCost(usage, { input: 0.3, output: 2.5, cached_input: 0.3 })).toBeNull();
  });
});

describe('the most an image call may cost (budgets)', () => {
  const imageModel = {
    model: { max_output_tokens: 32768 },
    offering: { pricing: { input: 0.3, output: 2.5, output_image: 30, cached_input: 0.3 } },
  };
  it('holds every output token at the image price when the call asks for images', () => {
    const body = { messages: [{ role: 'user', content: 'Draw' }], max_tokens: 2000 };
    const text = worstCost(body, [imageModel]).usd;
    const images = worstCost({ ...body, modalities: ['text', 'image'] }, [imageModel]).usd;
    expect(images).toBeGreaterThanOrEqual((2000 * 30) / 1e6);
    expect(text).toBeLessThan((2000 * 30) / 1e6);
  });
  it('keeps a text model priced as before when "image" is asked of it (it is dropped there)', () => {
    const textModel = { model: imageModel.model, offering: { pricing: { input: 1, output: 4, cached_input: 1 } } };
    const body = { messages: [{ role: 'user', content: 'Draw' }], max_tokens: 2000 };
    expect(worstCost({ ...body, modalities: ['text', 'image'] }, [textModel]).usd).toBe(
      worstCost(body, [textModel]).usd,
    );
  });
});
