import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listMediaModels } from '../../src/catalog/media-catalog.ts';
import { createGateway } from '../../src/index.ts';
import { startTestServer, type TestServer } from '../server/start-test-server.ts';

/** The media catalog: modalities and price units, listed in process, by `GET /v1/models` and `switchyard models`. */
let test: TestServer;
beforeAll(async () => {
  test = await startTestServer();
});
afterAll(() => test.stop());

describe('the media catalog', () => {
  it('every row states its modalities, and a price is either in its unit with its source, or null', () => {
    for (const model of listMediaModels()) {
      expect(model.modalities.input.length).toBeGreaterThan(0);
      expect(model.modalities.output.length).toBeGreaterThan(0);
      for (const offering of model.providers) {
        if (offering.pricing === null) expect(offering.source).toBeNull();
        else expect(offering.source).toMatch(/^https:\/\//);
        for (const value of Object.values(offering.pricing ?? {})) expect(value).not.toBe(0);
      }
    }
  });

  it('a model in both catalogs has one price: the media row bills as the chat row does', () => {
    const chat = createGateway({ env: {}, mock: true }).listModels().data;
    let shared = 0;
    for (const model of listMediaModels()) {
      const row = chat.find((entry) => entry.id === model.id);
      if (!row) continue;
      shared++;
      // Offered by the same providers: a provider the chat row prices is not unpriced when called for images.
      expect(model.providers.map((offering) => offering.provider).sort(), model.id).toEqual(
        row.providers.map((entry) => entry.provider).sort(),
      );
      for (const offering of model.providers) {
        const prices = row.providers.find((entry) => entry.provider === offering.provider)?.pricing as
          | Record<string, number>
          | undefined;
        const tokens = offering.pricing?.tokens;
        expect({ input: tokens?.text_input, image: tokens?.output, text: tokens?.text_output }, model.id).toEqual({
          input: prices?.input,
          image: prices?.output_image,
          text: prices?.output,
        });
      }
    }
    expect(shared).toBeGreaterThan(0);
  });

  it('gateway.listMediaModels filters by output modality; listModels by output modality too', async () => {
    const gateway = createGateway({ env: {}, mock: true });
    const audio = await gateway.listMediaModels({ output_modality: 'audio' });
    expect(audio.map((model) => model.id)).toEqual([
      'tts-1',
      'tts-1-hd',
      'gpt-4o-mini-tts',
      'gemini-2.5-flash-preview-tts',
      'gemini-2.5-pro-preview-tts',
    ]);
    expect(audio[0]).toMatchObject({ object: 'model', owned_by: 'openai', kind: 'speech' });
    // listModels() carries the media rows beside the chat models, filtered alike (the Node build; docs/media.md).
    const speech = gateway.listModels({ output_modality: 'audio' });
    expect(speech.media?.map((model) => model.id)).toEqual(audio.map((model) => model.id));
    expect(gateway.listModels().media?.map((model) => model.id)).toContain('whisper-1');
    expect(gateway.listModels({ reasoning: true }).media).toEqual([]);
    // Chat models that answer with images (`modalities: ["text", "image"]`) give images too.
    const drawing = gateway.listModels({ output_modality: 'image' }).data;
    expect(drawing.map((model) => model.id)).toEqual(['gemini-2.5-flash-image']);
    expect(drawing[0]!.modalities.output).toEqual(['text', 'image']);
    expect(gateway.listModels({ output_modality: 'text' }).data.length).toBeGreaterThan(10);
  });

  it('GET /v1/models lists the media models; ?output_modality=image only the image ones', async () => {
    const all = (await (await fetch(`${test.url}/v1/models`)).json()) as any;
    expect(all.media.map((model: { id: string }) => model.id)).toContain('whisper-1');
    const images = (await (await fetch(`${test.url}/v1/models?output_modality=image`)).json()) as any;
    expect(images.data.map((model: { id: string }) => model.id)).toEqual(['gemini-2.5-flash-image']);
    expect(new Set(images.media.map((model: { kind: string }) => model.kind))).toEqual(new Set(['image']));
    expect((await fetch(`${test.url}/v1/models?output_modality=smell`)).status).toBe(400);
  });

  it('switchyard models --output audio prints the speech models with their price units', async () => {
    const node = process.execPath;
    const { stdout } = await promisify(execFile)(node, ['src/cli.ts', 'models', '--output', 'audio'], { env: {} });
    expect(stdout).toMatch(/tts-1\s+openai\s+speech\s+text → audio\s+\$15\/1M chars/);
    expect(stdout).toMatch(/gpt-4o-mini-tts .*\? \(not known\)/);
  });
});
