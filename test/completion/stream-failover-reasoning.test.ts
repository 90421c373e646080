import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Backends, bounded, drain, gatewayFor, MODELS, startBackends, text } from '../reliability/harness.ts';

/** A stream cut while the model was still reasoning: no text reached the caller, so the next candidate starts over. */
let backends: Backends;
beforeAll(async () => {
  backends = await startBackends();
});
afterAll(() => backends.close());

it('a cut inside the reasoning starts the answer over at the next candidate', async () => {
  const answer = 'The quick brown fox jumps over the lazy dog.';
  const thinking = 'Thinking about the fox and the dog.';
  backends.anthropic.enqueue({
    content: [
      { type: 'thinking', thinking, signature: 'sig' },
      { type: 'text', text: answer },
    ],
    streamErrorAfter: 2,
  });
  backends.google.enqueue({ text: answer });
  const gateway = gatewayFor(backends);
  const request = { model: MODELS.anthropic, messages: [{ role: 'user' as const, content: 'The fox?' }] };
  const stream = await bounded(gateway.createCompletion({ ...request, stream: true, fallbacks: [MODELS.google] }));
  const { chunks, error } = await drain(stream);
  const reasoning = chunks.map((chunk) => chunk.choices[0]?.delta.reasoning_content ?? '').join('');
  console.log(
    `stream-cut matrix: anthropic | error event inside the reasoning | continued on google | reasoning ` +
      `${JSON.stringify(reasoning)}, then ${JSON.stringify(text(chunks))}`,
  );
  expect(error).toBeUndefined();
  expect(reasoning).toBe(thinking.slice(0, 10));
  expect(text(chunks)).toBe(answer);
  // Asked as the caller asked: nothing of an answer to continue.
  expect(backends.google.requests.at(-1)?.body.contents).toHaveLength(1);
  expect(stream.switchyard.attempts.map((attempt) => attempt.outcome)).toEqual(['stream_interrupted', 'ok']);
});
