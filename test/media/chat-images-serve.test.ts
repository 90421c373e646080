import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_PNG_BASE64, startFakeGeminiServer } from '../fake-servers/gemini-server.ts';
import { api, startTestServer, type TestServer } from '../server/start-test-server.ts';

/**
 * Images in chat on `switchyard serve`'s /v1/chat/completions, driven by the official `openai` SDK in front of the
 * fake Gemini server: `message.images` and the streamed `delta.images` reach the client as the gateway answers them
 * (the SDK passes fields it does not type through), and the call's record keeps the image's size, not its bytes.
 */
const gemini = await startFakeGeminiServer();
let serve: TestServer;
beforeAll(async () => {
  serve = await startTestServer({
    mock: false,
    gateway: {
      env: {},
      retry: { maxRetries: 0 },
      providers: { google: { apiKey: 'gemini-upstream', baseURL: gemini.url } },
    },
  });
});
afterAll(async () => {
  await Promise.all([serve.stop(), gemini.close()]);
});

const body = {
  model: 'gemini-2.5-flash-image',
  messages: [{ role: 'user' as const, content: 'Draw a red square' }],
  // The SDK types OpenAI's modalities (text, audio); "image" is the gateway's, as OpenRouter's.
  modalities: ['text', 'image'] as unknown as Array<'text'>,
};
const image = { type: 'image_url', image_url: { url: `data:image/png;base64,${FAKE_PNG_BASE64}` } };
const EXPECTED_COST = (12 * 0.3 + 6 * 2.5 + 1290 * 30) / 1e6;

describe('images in chat through serve', () => {
  it('answers message.images to the openai SDK, priced at the image rate, the record without the bytes', async () => {
    const completion = await serve.openai().chat.completions.create(body);
    const message = completion.choices[0]!.message as (typeof completion.choices)[0]['message'] & { images?: unknown };
    expect(message.content).toBe('A picture from fake gemini-2.5-flash-image');
    expect(message.images).toEqual([image]);
    const facts = (completion as unknown as { switchyard: { cost_usd: number; call_id: string } }).switchyard;
    expect(facts.cost_usd).toBeCloseTo(EXPECTED_COST, 9);

    await serve.server.gateway.flush();
    const response = await api(serve, `/v1/calls/${facts.call_id}`);
    const text = await response.text();
    expect(response.status).toBe(200);
    expect(text).not.toContain(FAKE_PNG_BASE64);
    expect(JSON.parse(text).output.images).toEqual([
      { media_type: 'image/png', bytes: Buffer.from(FAKE_PNG_BASE64, 'base64').length },
    ]);
  });

  it('streams the image in a delta carrying images', async () => {
    const stream = await serve.openai().chat.completions.create({ ...body, stream: true });
    const images: unknown[] = [];
    let text = '';
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as { content?: string | null; images?: unknown[] } | undefined;
      text += delta?.content ?? '';
      images.push(...(delta?.images ?? []));
    }
    expect(text).toBe('A picture from fake gemini-2.5-flash-image');
    expect(images).toEqual([image]);
  });
});
