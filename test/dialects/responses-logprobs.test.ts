import { describe, expect, it } from 'vitest';
import { createGateway } from '../../src/index.ts';

/** Logprobs asked of a Responses call (`top_logprobs`, or `include` of the text's logprobs) come back with the text. */
const gateway = createGateway({ mock: true, env: {} });
const model = 'gpt-4o-latest';

type Logprob = { token: string; logprob: number; top_logprobs: unknown[] };
const textPart = (output: unknown[]) =>
  (output as Array<{ type: string; content?: Array<{ type: string; text: string; logprobs: Logprob[] }> }>)
    .find((item) => item.type === 'message')!
    .content!.find((part) => part.type === 'output_text')!;

describe('logprobs in the Responses API', () => {
  it('top_logprobs: each token with its alternatives', async () => {
    const response = await gateway.createResponse({ model, input: 'hi', top_logprobs: 2 });
    const part = textPart(response.output);
    expect(part.logprobs.length).toBeGreaterThan(0);
    expect(part.logprobs.map((entry) => entry.token).join('')).toBe(part.text);
    expect(part.logprobs[0]!.top_logprobs).toHaveLength(2);
  });

  it('include message.output_text.logprobs alone: the tokens’ logprobs', async () => {
    const response = await gateway.createResponse({ model, input: 'hi', include: ['message.output_text.logprobs'] });
    expect(textPart(response.output).logprobs.length).toBeGreaterThan(0);
  });

  it('not asked: none', async () => {
    const response = await gateway.createResponse({ model, input: 'hi' });
    expect(textPart(response.output).logprobs).toEqual([]);
  });

  it('streamed: on each text delta, and whole in the done events and the final response', async () => {
    const stream = await gateway.createResponse({ model, input: 'hi', top_logprobs: 1, stream: true });
    const deltas: Logprob[] = [];
    let done: Logprob[] = [];
    let final: unknown[] = [];
    for await (const event of stream) {
      if (event.type === 'response.output_text.delta') deltas.push(...(event.logprobs as never as Logprob[]));
      if (event.type === 'response.output_text.done') done = event.logprobs as never;
      if (event.type === 'response.completed') final = event.response.output;
    }
    expect(deltas.length).toBeGreaterThan(0);
    expect(done).toEqual(deltas);
    expect(textPart(final).logprobs).toEqual(deltas);
  });
});
