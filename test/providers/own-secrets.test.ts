import { afterAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/index.ts';
import { startFakeBedrockServer } from '../fake-servers/bedrock-server.ts';

/**
 * Each provider's own secrets are its definition's to name, and errors never show them: Bedrock's AWS secret key and
 * session token, Vertex AI's service account key (whole, when it is not even JSON).
 */
const bedrock = await startFakeBedrockServer();
afterAll(() => bedrock.close());
const hello = [{ role: 'user' as const, content: 'Hello' }];

describe("a provider's own secrets", () => {
  it("Bedrock's secret key and session token, quoted by an error, are redacted", async () => {
    const credentials = {
      accessKeyId: 'AKID',
      secretAccessKey: 'aws-secret-0123456789',
      sessionToken: 'session-987654',
    };
    const gateway = createGateway({
      env: {},
      retry: { maxRetries: 0 },
      providers: { bedrock: { region: 'us-east-1', baseURL: bedrock.url, credentials } },
    });
    bedrock.enqueue({
      error: {
        status: 400,
        type: 'ValidationException',
        message: 'signed with aws-secret-0123456789 / session-987654',
      },
    });
    const error = await gateway
      .createCompletion({ model: 'bedrock/us.amazon.nova-pro-v1:0', messages: hello })
      .catch((thrown: unknown) => thrown);
    const text = `${(error as Error).message} ${JSON.stringify(error)}`;
    expect(text).toContain('[redacted]');
    expect(text).not.toContain('aws-secret-0123456789');
    expect(text).not.toContain('session-987654');
  });

  it('a Vertex service account key that is not JSON is an unusable provider, and none of it is shown', async () => {
    const pasted = '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSj\n-----END PRIVATE KEY-----\n';
    const gateway = createGateway({
      env: {},
      providers: { vertex: { project: 'acme', region: 'us-central1', serviceAccount: pasted } },
    });
    const error = await gateway
      .createCompletion({ model: 'vertex/gemini-2.5-flash', messages: hello })
      .catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ code: 'provider_not_configured' });
    const [attempt] = (error as { attempts: Array<{ outcome: string; message: string }> }).attempts;
    expect(attempt).toMatchObject({ outcome: 'missing_credentials' });
    expect(attempt!.message).toContain('providers.vertex.serviceAccount is not JSON');
    const text = `${(error as Error).message} ${JSON.stringify(error)}`;
    expect(text).not.toContain('MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSj');
    expect(text).not.toContain('BEGIN PRIVATE');
  });
});
