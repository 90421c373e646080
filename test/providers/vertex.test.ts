import { generateKeyPairSync } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/index.ts';
import { startFakeAnthropicServer } from '../fake-servers/anthropic-server.ts';
import { startFakeGeminiServer } from '../fake-servers/gemini-server.ts';
import { startFakeGoogleOAuthServer } from '../fake-servers/google-oauth-server.ts';
import { startTestServer } from '../server/start-test-server.ts';

/**
 * Google Vertex AI: Gemini through @google/genai (vertexai) and Claude through @anthropic-ai/vertex-sdk, against the
 * fake Gemini and Anthropic servers on Vertex's URL shapes, with a service account whose token requests go to a
 * fake OAuth endpoint that checks the signed JWT (through the provider's fetch: nothing leaves loopback).
 */
const gemini = await startFakeGeminiServer();
const anthropic = await startFakeAnthropicServer();
const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const oauth = await startFakeGoogleOAuthServer({ publicKey });
const tokenURL = oauth.tokenURL;
afterAll(() => Promise.all([gemini.close(), anthropic.close(), oauth.close()]));

const serviceAccount = {
  type: 'service_account',
  project_id: 'acme-prod',
  client_email: 'switchyard@acme-prod.iam.gserviceaccount.com',
  private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  token_uri: 'https://oauth2.googleapis.com/token',
};
/** The provider's fetch: Google's token host goes to the fake OAuth endpoint, the rest as it is (all loopback). */
const viaFakeOAuth =
  (target: string): typeof fetch =>
  (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (url.startsWith('https://oauth2.googleapis.com/token')) return fetch(tokenURL, init);
    if (!url.startsWith('http://127.0.0.1')) throw new Error(`a test must not reach ${url}`);
    return fetch(input.toString().replace(/^http:\/\/127\.0\.0\.1:\d+/, target), init);
  };
const gatewayOn = (target: string) =>
  createGateway({
    env: {},
    retry: { maxRetries: 0 },
    providers: {
      vertex: {
        project: 'acme-prod',
        region: 'us-east5',
        baseURL: target,
        serviceAccount,
        fetch: viaFakeOAuth(target),
      },
    },
  });
const hello = [{ role: 'user' as const, content: 'Hello' }];

describe('Vertex AI', () => {
  it('a model name leaving the model path (`..`, `?`) is refused before any request, Claude’s too', async () => {
    const before = { gemini: gemini.requests.length, anthropic: anthropic.requests.length };
    for (const model of [
      'vertex/claude-sonnet-4@20250514/../../x',
      'vertex/../../cachedContents?',
      'vertex/claude#x',
    ]) {
      const error = await gatewayOn(anthropic.url)
        .createCompletion({ model, messages: hello })
        .catch((thrown: unknown) => thrown);
      expect(error, model).toMatchObject({ status: 400, param: 'model' });
    }
    expect({ gemini: gemini.requests.length, anthropic: anthropic.requests.length }).toEqual(before);
  });

  it('gemini-2.5-flash with only a service account: the token fetched with a signed JWT, the Vertex URL', async () => {
    const response = await gatewayOn(gemini.url).createCompletion({ model: 'gemini-2.5-flash', messages: hello });
    expect(response.choices[0]!.message.content).toBe('Hello from fake gemini-2.5-flash');
    expect(response.switchyard.provider).toBe('vertex');
    expect(response.switchyard.attempts.map((attempt) => `${attempt.provider}:${attempt.outcome}`)).toEqual([
      'google:missing_credentials',
      'vertex:ok',
    ]);
    const sent = gemini.requests.at(-1)!;
    expect(sent.path).toBe(
      '/v1/projects/acme-prod/locations/us-east5/publishers/google/models/gemini-2.5-flash:generateContent',
    );
    expect(sent.headers.authorization).toBe('Bearer ya29.fake-for-cloud-platform');
    expect(oauth.requests.at(-1)!.grant).toBe('urn:ietf:params:oauth:grant-type:jwt-bearer');
  });

  it("Gemini's image model on Vertex: responseModalities sent, images answered, image tokens priced", async () => {
    const response = await gatewayOn(gemini.url).createCompletion({
      model: 'gemini-2.5-flash-image',
      messages: hello,
      modalities: ['text', 'image'],
    });
    expect(response.switchyard.provider).toBe('vertex');
    expect(gemini.requests.at(-1)!.body.generationConfig.responseModalities).toEqual(['TEXT', 'IMAGE']);
    expect(response.choices[0]!.message.images?.[0]?.image_url.url).toMatch(/^data:image\/png;base64,iVBOR/);
    expect(response.switchyard.cost_usd).toBeCloseTo((12 * 0.3 + 6 * 2.5 + 1290 * 30) / 1e6, 9);
  });

  it('streams Gemini on Vertex', async () => {
    const stream = await gatewayOn(gemini.url).createCompletion({
      model: 'gemini-2.5-flash',
      messages: hello,
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('Hello from fake gemini-2.5-flash');
    expect(gemini.requests.at(-1)!.path).toMatch(
      /publishers\/google\/models\/gemini-2\.5-flash:streamGenerateContent$/,
    );
  });

  it('claude-sonnet-4-5 on Vertex: rawPredict and streamRawPredict, the Anthropic conversions', async () => {
    const gateway = gatewayOn(anthropic.url);
    const response = await gateway.createCompletion({ model: 'vertex/claude-sonnet-4-5', messages: hello });
    expect(response.switchyard).toMatchObject({ provider: 'vertex', provider_model: 'claude-sonnet-4-5@20250929' });
    expect(anthropic.requests.at(-1)!.path).toBe(
      '/v1/projects/acme-prod/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict',
    );
    expect(anthropic.requests.at(-1)!.headers.authorization).toBe('Bearer ya29.fake-for-cloud-platform');
    const stream = await gateway.createCompletion({ model: 'vertex/claude-sonnet-4-5', messages: hello, stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text.length).toBeGreaterThan(0);
    expect(anthropic.requests.at(-1)!.path).toMatch(/:streamRawPredict$/);
  });

  it('Imagen on Vertex: the same :predict body on Vertex’s URL, with the service account’s token', async () => {
    const image = await gatewayOn(gemini.url).createImage({
      model: 'imagen-4.0-generate-001',
      prompt: 'a fjord',
      n: 2,
      size: '1024x1792',
      style: 'vivid',
    });
    expect(image.switchyard.provider).toBe('vertex');
    expect(image.switchyard.attempts.map((attempt) => `${attempt.provider}:${attempt.outcome}`)).toEqual([
      'google:missing_credentials',
      'vertex:ok',
    ]);
    const sent = gemini.requests.at(-1)!;
    expect(sent.path).toBe(
      '/v1/projects/acme-prod/locations/us-east5/publishers/google/models/imagen-4.0-generate-001:predict',
    );
    expect(sent.headers.authorization).toBe('Bearer ya29.fake-for-cloud-platform');
    expect(sent.headers['x-goog-api-key']).toBeUndefined();
    expect(sent.body).toEqual({
      instances: [{ prompt: 'a fjord' }],
      parameters: { sampleCount: 2, aspectRatio: '9:16' },
    });
    expect(image.data).toHaveLength(2);
    expect(image.switchyard.warnings.map((warning) => [warning.code, warning.param])).toEqual(
      expect.arrayContaining([
        ['converted_parameter', 'size'],
        ['unsupported_parameter', 'style'],
      ]),
    );
  });

  it('Gemini’s image model pinned to Vertex: generateContent there; an edit sends the image inline', async () => {
    const gateway = gatewayOn(gemini.url);
    const image = await gateway.createImage({ model: 'vertex/gemini-2.5-flash-image', prompt: 'a kite' });
    expect(image.switchyard.provider).toBe('vertex');
    expect(gemini.requests.at(-1)!.path).toBe(
      '/v1/projects/acme-prod/locations/us-east5/publishers/google/models/gemini-2.5-flash-image:generateContent',
    );
    expect(image.data?.[0]?.b64_json).toMatch(/^iVBOR/);
    const file = { data: new Uint8Array([1, 2, 3]), name: 'a.png', type: 'image/png' };
    await gateway.editImage({ model: 'vertex/gemini-2.5-flash-image', prompt: 'bluer', image: file });
    expect(gemini.requests.at(-1)!.body.contents[0].parts[0]).toEqual({
      inlineData: { mimeType: 'image/png', data: 'AQID' },
    });
    expect(gemini.requests.at(-1)!.headers.authorization).toBe('Bearer ya29.fake-for-cloud-platform');
  });

  it('Imagen on Vertex through serve: the openai SDK’s images.generate, an access token given', async () => {
    const vertex = { project: 'acme-prod', region: 'europe-west4', apiKey: 'ya29.caller-token', baseURL: gemini.url };
    const test = await startTestServer({ mock: false, gateway: { env: {}, providers: { vertex } } });
    try {
      const image = await test.openai().images.generate({ model: 'vertex/imagen-4.0-generate-001', prompt: 'a kite' });
      expect(image.data?.[0]?.b64_json).toMatch(/^iVBOR/);
      const sent = gemini.requests.at(-1)!;
      expect(sent.path).toBe(
        '/v1/projects/acme-prod/locations/europe-west4/publishers/google/models/imagen-4.0-generate-001:predict',
      );
      expect(sent.headers.authorization).toBe('Bearer ya29.caller-token');
      expect((image as unknown as { switchyard: { provider: string } }).switchyard.provider).toBe('vertex');
    } finally {
      await test.stop();
    }
  });

  it('without a project or credentials, Vertex is skipped as missing credentials', async () => {
    const error = await createGateway({ env: {} })
      .createCompletion({ model: 'vertex/gemini-2.5-flash', messages: hello })
      .catch((thrown: unknown) => thrown);
    expect((error as { attempts: Array<{ outcome: string }> }).attempts[0]).toMatchObject({
      outcome: 'missing_credentials',
    });
  });
});
