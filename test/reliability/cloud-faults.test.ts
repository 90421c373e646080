import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createGateway, ProviderError, StreamInterruptedError } from '../../src/index.ts';
import { startFakeBedrockServer } from '../fake-servers/bedrock-server.ts';
import { startFakeGeminiServer } from '../fake-servers/gemini-server.ts';
import { startFaultyServer } from './faulty-server.ts';
import { bounded, guardUnhandledRejections } from './harness.ts';

/**
 * The fault matrix's rows for the clouds: Vertex AI behind the fault-injecting front (rate limit retried, outage
 * falling back, reset, malformed 200, a stream cut after content, a refused token not retried), and Bedrock over its
 * own HTTP/2 fake (the front speaks HTTP/1.1): throttling, an outage falling back to Vertex, a stream exception.
 * Every call ends in an answer or a typed error with the attempt chain, within a bound.
 */
const gemini = await startFakeGeminiServer();
const front = await startFaultyServer(gemini.url);
const bedrock = await startFakeBedrockServer();
afterAll(async () => {
  await Promise.all([front.close(), gemini.close(), bedrock.close()]);
});
afterEach(() => front.reset());
guardUnhandledRejections();

const vertex = { apiKey: 'ya29.CLOUDFAULTStoken', baseURL: front.url, project: 'acme', region: 'us-central1' };
const gateway = createGateway({
  env: {},
  retry: { maxRetries: 1, initialDelayMs: 1, maxDelayMs: 20 },
  providers: {
    vertex,
    bedrock: {
      region: 'us-east-1',
      baseURL: bedrock.url,
      credentials: { accessKeyId: 'AKID', secretAccessKey: 'secret-key-1' },
    },
  },
});
const gcpError = (status: number, message: string, googleStatus: string) => ({
  kind: 'status' as const,
  status,
  body: { error: { code: status, message, status: googleStatus } },
});
const ask = (model: string) =>
  bounded(gateway.createCompletion({ model, messages: [{ role: 'user', content: 'Say hello' }] }));
const askStream = (model: string) =>
  bounded(gateway.createCompletion({ model, messages: [{ role: 'user', content: 'Say hello' }], stream: true }));
const outcomes = (error: unknown) =>
  (error as { attempts: Array<{ provider: string; outcome: string }> }).attempts.map(
    (a) => `${a.provider}:${a.outcome}`,
  );

describe('Vertex AI under faults', () => {
  it('a 429 is retried, then answered', async () => {
    front.enqueue(gcpError(429, 'Quota exceeded', 'RESOURCE_EXHAUSTED'));
    const response = await ask('vertex/gemini-2.5-flash');
    expect(response.switchyard.attempts.map((attempt) => attempt.outcome)).toEqual(['RESOURCE_EXHAUSTED', 'ok']);
  });

  it('a reset and a malformed 200 are retried like outages', async () => {
    front.enqueue({ kind: 'reset' });
    const afterReset = await ask('vertex/gemini-2.5-flash');
    expect(afterReset.switchyard.attempts[0]!.outcome).toBe('connection_error');
    front.enqueue({ kind: 'malformed', body: '{"candidates": [{"content": ', contentType: 'application/json' });
    const afterGarbage = await ask('vertex/gemini-2.5-flash');
    expect(afterGarbage.switchyard.attempts[0]!.outcome).toBe('invalid_response');
  });

  it('a refused token is not retried', async () => {
    front.enqueue(gcpError(401, 'Request had invalid authentication credentials.', 'UNAUTHENTICATED'));
    const error = await ask('vertex/gemini-2.5-flash').catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ProviderError);
    expect(outcomes(error)).toEqual(['vertex:UNAUTHENTICATED']);
    expect(error).toMatchObject({ status: 401 });
    expect(JSON.stringify(error)).not.toContain(vertex.apiKey);
  });

  it('a stream cut after content ends in StreamInterruptedError', async () => {
    front.enqueue({ kind: 'truncate', events: 1 });
    const stream = await askStream('vertex/gemini-2.5-flash');
    const error = await (async () => {
      for await (const _chunk of stream) {
        // read to the end
      }
    })().catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(StreamInterruptedError);
  });
});

describe('Bedrock under faults', () => {
  it('an outage on Bedrock falls back to the next offering of the model (Vertex)', async () => {
    bedrock.enqueue(
      { error: { status: 503, type: 'ServiceUnavailableException', message: 'Service unavailable' } },
      { error: { status: 503, type: 'ServiceUnavailableException', message: 'Service unavailable' } },
    );
    const response = await ask('claude-sonnet-4-5').catch((thrown: unknown) => thrown);
    // Anthropic has no key; Bedrock fails twice; Vertex's Claude is reached through the Gemini fake's front, which
    // has no Claude route: what matters is the chain, in order, and a typed error or an answer at its end.
    const chain = outcomes(response instanceof Error ? response : (response as { switchyard: unknown }).switchyard);
    expect(chain.slice(0, 3)).toEqual([
      'anthropic:missing_credentials',
      'bedrock:ServiceUnavailableException',
      'bedrock:ServiceUnavailableException',
    ]);
    expect(chain[3]).toMatch(/^vertex:/);
  });

  it('an exception inside the stream after content ends in StreamInterruptedError', async () => {
    bedrock.enqueue({ text: 'Some text first', streamException: 'throttlingException' });
    const stream = await askStream('bedrock/claude-sonnet-4-5');
    const error = await (async () => {
      for await (const _chunk of stream) {
        // read to the end
      }
    })().catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(StreamInterruptedError);
  });
});
