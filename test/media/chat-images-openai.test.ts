import { describe, expect, it } from 'vitest';
import { gatewayAgainst, useFakeOpenAIServer } from '../helpers/openai-env.ts';

/**
 * OpenAI's chat API has no image output: its `modalities` is for audio (gpt-4o-audio). "image" is dropped from what
 * reaches it, with a warning, and what OpenAI does take is sent as it was asked.
 */
const server = await useFakeOpenAIServer();

describe('modalities on OpenAI', () => {
  it('sends text and audio on, and drops "image" with a warning', async () => {
    const response = await gatewayAgainst(server.url).createCompletion({
      model: 'gpt-4o-2024-11-20',
      messages: [{ role: 'user', content: 'Say hi and draw it' }],
      modalities: ['text', 'audio', 'image'],
    });
    expect(server.requests[0]!.body.modalities).toEqual(['text', 'audio']);
    expect(response.switchyard.warnings).toEqual([
      expect.objectContaining({ code: 'unsupported_parameter', param: 'modalities' }),
    ]);
  });

  it('sends nothing when only "text" is left', async () => {
    await gatewayAgainst(server.url).createCompletion({
      model: 'gpt-4o-2024-11-20',
      messages: [{ role: 'user', content: 'Draw' }],
      modalities: ['text', 'image'],
    });
    expect(server.requests[0]!.body).not.toHaveProperty('modalities');
  });
});
