import { afterAll, describe, expect, it } from 'vitest';
import { createGateway, type SwitchyardError } from '../../src/index.ts';

/**
 * A media request its checks refuse (a speed out of range, `n` past 10, an empty file) is recorded as a chat or
 * embeddings call refused the same way is, with its call id on the error: it was refused before the call began, so
 * nothing of it was recorded and an operator could not see it.
 */
const gateway = createGateway({ mock: true });
afterAll(() => gateway.close());

async function recordOfRefusal(call: Promise<unknown>) {
  const error = (await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  )) as SwitchyardError;
  expect(error).toMatchObject({ status: 400 });
  expect(error.callId).toBeTruthy();
  await gateway.flush();
  return gateway.calls.get?.(error.callId!);
}

describe('media requests refused by their checks', () => {
  it('are recorded, with their dialect and the error', async () => {
    const speech = await recordOfRefusal(
      gateway.createSpeech({ model: 'tts-1', input: 'hi', voice: 'alloy', speed: 9 }),
    );
    expect(speech).toMatchObject({ dialect: 'speech', status: 'error', error: { status: 400 } });
    const image = await recordOfRefusal(gateway.createImage({ model: 'gpt-image-1', prompt: 'a fjord', n: 11 }));
    expect(image).toMatchObject({ dialect: 'images', status: 'error' });
    const empty = { data: new Uint8Array(0), name: 'a.wav' };
    const transcription = await recordOfRefusal(gateway.createTranscription({ model: 'whisper-1', file: empty }));
    expect(transcription).toMatchObject({ dialect: 'transcriptions', status: 'error' });
    const edit = await recordOfRefusal(gateway.editImage({ model: 'gpt-image-1', prompt: 'x', image: empty }));
    expect(edit).toMatchObject({ dialect: 'images', status: 'error' });
  });
});
