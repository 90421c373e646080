import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './start-test-server.ts';

/**
 * A multipart upload is held to a few parts and to the JSON bodies' size for its text: a body of many parts or one
 * huge text field must not stall the process or reach the masker and the record whole.
 */
let test: TestServer;
beforeAll(async () => {
  test = await startTestServer({ maxBodyBytes: 64 * 1024 });
});
afterAll(async () => {
  await test.stop();
});

const boundary = 'switchyard-test-boundary';
function multipart(parts: Array<{ name: string; value: string; file?: string }>): string {
  const body = parts.map(({ name, value, file }) => {
    const disposition = `form-data; name="${name}"${file ? `; filename="${file}"` : ''}`;
    const type = file ? '\r\ncontent-type: image/png' : '';
    return `--${boundary}\r\ncontent-disposition: ${disposition}${type}\r\n\r\n${value}\r\n`;
  });
  return `${body.join('')}--${boundary}--\r\n`;
}
const post = (path: string, body: string) =>
  fetch(`${test.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${test.key}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
    body,
  });

describe('a multipart body', () => {
  it('of more parts than any request needs is refused with a 400, at once', async () => {
    const parts = Array.from({ length: 20_000 }, () => ({ name: 'image[]', value: '' }));
    const response = await post('/v1/images/edits', multipart([{ name: 'model', value: 'gpt-image-1' }, ...parts]));
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string; param: string } }).error.message).toMatch(/parts/);
  });

  it('of many parts under a boundary the header names after a look-alike is refused all the same', async () => {
    const parts = Array.from({ length: 200 }, () => ({ name: 'image[]', value: '' }));
    const response = await fetch(`${test.url}/v1/images/edits`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${test.key}`,
        'content-type': `multipart/form-data; xboundary=zz; boundary="${boundary}"`,
      },
      body: multipart([{ name: 'model', value: 'gpt-image-1' }, ...parts]),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/64 parts/);
  });

  it('with a text field past the JSON bodies’ limit is refused with a 413', async () => {
    const response = await post(
      '/v1/images/edits',
      multipart([
        { name: 'model', value: 'gpt-image-1' },
        { name: 'prompt', value: 'x'.repeat(100 * 1024) },
        { name: 'image', value: 'png', file: 'a.png' },
      ]),
    );
    expect(response.status).toBe(413);
  });

  it('of an edit without an image is refused with a 400 naming it, before any provider', async () => {
    const response = await post(
      '/v1/images/edits',
      multipart([
        { name: 'model', value: 'gpt-image-1' },
        { name: 'prompt', value: 'x' },
      ]),
    );
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string; param: string } }).error.param).toBe('image');
  });

  it('of a transcription asking for a stream is refused, and a form’s sensitive_data is obeyed', async () => {
    const audio = { name: 'file', value: 'mp3', file: 'a.mp3' };
    const streamed = await post(
      '/v1/audio/transcriptions',
      multipart([{ name: 'model', value: 'whisper-1' }, { name: 'stream', value: 'true' }, audio]),
    );
    expect(streamed.status).toBe(400);
    const blocked = await post(
      '/v1/images/edits',
      multipart([
        { name: 'model', value: 'gpt-image-1' },
        { name: 'prompt', value: 'card 4111 1111 1111 1111' },
        { name: 'sensitive_data', value: 'block' },
        { name: 'image', value: 'png', file: 'a.png' },
      ]),
    );
    expect(blocked.status).toBe(400);
    expect(((await blocked.json()) as { error: { code: string } }).error.code).toBe('sensitive_data_blocked');
  });
});
