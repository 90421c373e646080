import { afterAll, describe, expect, it } from 'vitest';
import { createGateway, InvalidRequestError } from '../../src/index.ts';
import { pngSize } from '../../src/internal/png.ts';
import { startFakeBedrockServer } from '../fake-servers/bedrock-server.ts';

/**
 * Amazon's image models on Bedrock through `gateway.createImage`, against the fake Bedrock runtime's InvokeModel:
 * the TEXT_IMAGE body as sent, SigV4-signed as Converse is, the base64 images as `b64_json`, errors and records.
 */
const bedrock = await startFakeBedrockServer();
afterAll(() => bedrock.close());

const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMIexampleSECRETkey' };
const providers = { bedrock: { region: 'us-east-1', baseURL: bedrock.url, credentials } };
const gateway = createGateway({ env: {}, providers, retry: { maxRetries: 1, initialDelayMs: 1, maxDelayMs: 1 } });

async function recordOf(callId: string) {
  await gateway.flush();
  return (await gateway.calls.list({ limit: 500 })).data.find((record) => record.id === callId)!;
}

describe('Bedrock image models through InvokeModel', () => {
  it('Nova Canvas: the TEXT_IMAGE body, SigV4-signed; n images back as b64_json; cost unknown, flagged', async () => {
    const answer = await gateway.createImage({
      model: 'amazon.nova-canvas-v1:0',
      prompt: 'a lighthouse at dusk',
      n: 2,
      size: '1024x1024',
      quality: 'standard',
    });
    const sent = bedrock.requests.at(-1)!;
    expect(sent).toMatchObject({ operation: 'invoke', modelId: 'amazon.nova-canvas-v1:0' });
    expect(sent.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/us-east-1\/bedrock\//);
    expect(sent.body).toEqual({
      taskType: 'TEXT_IMAGE',
      textToImageParams: { text: 'a lighthouse at dusk' },
      imageGenerationConfig: { numberOfImages: 2, width: 1024, height: 1024, quality: 'standard' },
    });
    expect(answer.data).toHaveLength(2);
    expect(pngSize(Buffer.from(answer.data![0]!.b64_json!, 'base64'))).toEqual({ width: 2, height: 2 });
    expect(answer.switchyard).toMatchObject({ provider: 'bedrock', model: 'amazon.nova-canvas-v1:0', cost_usd: null });
    expect(answer.switchyard.warnings.map((warning) => warning.code)).toContain('price_unknown');
    const record = await recordOf(answer.switchyard.call_id);
    expect(record).toMatchObject({ dialect: 'images', status: 'ok', cost_usd: null });
    expect(JSON.stringify(record)).not.toContain(credentials.secretAccessKey);
  });

  it('Titan v2: a size it does not make sent as the nearest it does, hd as premium, each in a warning', async () => {
    const answer = await gateway.createImage({
      model: 'bedrock/amazon.titan-image-generator-v2:0',
      prompt: 'a fox',
      size: '1024x1536',
      quality: 'hd',
      style: 'vivid',
    });
    expect(bedrock.requests.at(-1)!.body.imageGenerationConfig).toEqual({
      numberOfImages: 1,
      width: 768,
      height: 1152,
      quality: 'premium',
    });
    expect(answer.switchyard.warnings.map((warning) => [warning.code, warning.param])).toEqual(
      expect.arrayContaining([
        ['converted_parameter', 'size'],
        ['converted_parameter', 'quality'],
        ['unsupported_parameter', 'style'],
      ]),
    );
    const strict = createGateway({ env: {}, providers, strict: true, retry: { maxRetries: 0 } });
    const refused = await strict
      .createImage({ model: 'amazon.titan-image-generator-v2:0', prompt: 'a fox', style: 'vivid' })
      .catch((error) => error);
    expect([refused.status, refused.param]).toEqual([400, 'style']);
  });

  it('more images than a request makes, or a model outside the two: a 400 sent nowhere', async () => {
    const before = bedrock.requests.length;
    const many = await gateway.createImage({ model: 'amazon.nova-canvas-v1:0', prompt: 'x', n: 6 }).catch((e) => e);
    expect(many).toBeInstanceOf(InvalidRequestError);
    expect([many.status, many.param]).toEqual([400, 'n']);
    const other = await gateway.createImage({ model: 'bedrock/stability.sd3-large-v1:0', prompt: 'x' }).catch((e) => e);
    expect([other.status, other.code]).toEqual([400, 'model_not_supported']);
    expect(bedrock.requests.length).toBe(before);
  });

  it('a throttled call is retried; a refused prompt is Bedrock’s 400; an answer without images invalid', async () => {
    bedrock.enqueue({ error: { status: 429, type: 'ThrottlingException', message: 'Too many requests' } });
    const retried = await gateway.createImage({ model: 'amazon.nova-canvas-v1:0', prompt: 'again' });
    // The outcome names Bedrock's exception, as for its chat calls.
    expect(retried.switchyard.attempts.map((attempt) => attempt.outcome)).toEqual(['ThrottlingException', 'ok']);

    const blocked = 'This request has been blocked by our content filters.';
    bedrock.enqueue({ error: { status: 400, type: 'ValidationException', message: blocked } });
    const refused = await gateway.createImage({ model: 'amazon.nova-canvas-v1:0', prompt: 'x' }).catch((e) => e);
    expect(refused.status).toBe(400);
    expect(refused.message).toContain(blocked);

    bedrock.enqueue({ images: [] }, { images: [] });
    const empty = await gateway.createImage({ model: 'amazon.nova-canvas-v1:0', prompt: 'x' }).catch((e) => e);
    expect(empty.message).toContain('an InvokeModel answer without images');
    expect(empty.status).toBeGreaterThanOrEqual(500);
  });

  it('a Bedrock API key is sent as a bearer token instead of a signature', async () => {
    const keyed = createGateway({
      env: {},
      providers: { bedrock: { region: 'us-east-1', baseURL: bedrock.url, apiKey: 'bedrock-api-key-1' } },
    });
    await keyed.createImage({ model: 'amazon.titan-image-generator-v2:0', prompt: 'x', size: '512x512' });
    expect(bedrock.requests.at(-1)!.headers.authorization).toBe('Bearer bedrock-api-key-1');
  });
});
