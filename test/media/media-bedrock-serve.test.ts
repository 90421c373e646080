import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pngSize } from '../../src/internal/png.ts';
import { startFakeBedrockServer } from '../fake-servers/bedrock-server.ts';
import { startTestServer, type TestServer } from '../server/start-test-server.ts';

/** `switchyard serve` in front of the fake Bedrock runtime, driven by the openai SDK's `images.generate`. */
const bedrock = await startFakeBedrockServer();
const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMIexampleSECRETkey' };
let test: TestServer;
beforeAll(async () => {
  test = await startTestServer({
    mock: false,
    gateway: {
      env: {},
      providers: { bedrock: { region: 'eu-west-1', baseURL: bedrock.url, credentials } },
      retry: { maxRetries: 0 },
    },
  });
});
afterAll(async () => {
  await test.stop();
  await bedrock.close();
});

describe('serve → the fake Bedrock runtime', () => {
  it('images.generate with Nova Canvas: signed InvokeModel, a PNG back, the warnings beside it', async () => {
    const image = await test.openai().images.generate({
      model: 'amazon.nova-canvas-v1:0',
      prompt: 'a paper kite',
      size: '1792x1024',
      response_format: 'url',
    });
    const sent = bedrock.requests.at(-1)!;
    expect(sent.path).toBe('/model/amazon.nova-canvas-v1%3A0/invoke');
    expect(sent.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/bedrock\//);
    expect(sent.body.imageGenerationConfig).toEqual({ numberOfImages: 1, width: 1792, height: 1024 });
    expect(pngSize(Buffer.from(image.data![0]!.b64_json!, 'base64'))).toEqual({ width: 2, height: 2 });
    const facts = (image as unknown as { switchyard: { provider: string; warnings: Array<{ param?: string }> } })
      .switchyard;
    expect(facts.provider).toBe('bedrock');
    expect(facts.warnings.map((warning) => warning.param)).toContain('response_format');
  });

  it('a prompt Bedrock refuses reaches the SDK as Bedrock’s 400, with its message', async () => {
    bedrock.enqueue({ error: { status: 400, type: 'ValidationException', message: 'blocked by content filters' } });
    const error = await test
      .openai()
      .images.generate({ model: 'amazon.titan-image-generator-v2:0', prompt: 'x' })
      .catch((thrown) => thrown);
    expect(error.status).toBe(400);
    expect(error.message).toContain('blocked by content filters');
  });
});
