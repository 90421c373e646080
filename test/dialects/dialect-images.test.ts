import { describe, expect, it } from 'vitest';
import { MemoryDeploymentStore } from '../../src/deployments/index.ts';
import { type CompletionResponse, createGateway } from '../../src/index.ts';
import { MemorySink } from '../../src/records/index.ts';

/**
 * A deployment that asks its model for images (`modalities: ["text", "image"]`) called through an API whose answer
 * has no place for them: the Messages API (no image output block), the Responses API (its images come from its own
 * image tool). "image" is dropped before the model is asked (no image is drawn nor paid for), with a warning in the
 * answer and the record; an error under strict. Chat keeps them.
 */
const deployments = () =>
  new MemoryDeploymentStore([
    {
      id: 'painter:production#1',
      agent_id: 'painter',
      environment: 'production',
      number: 1,
      created_at: '2026-11-01T09:00:00Z',
      version: {
        model: 'gemini-2.5-flash-image',
        messages: [{ role: 'system', content: 'You draw what you are asked.' }],
        modalities: ['text', 'image'],
      },
    },
  ]);
const model = 'switchyard/deployment/painter:production#1';
const draw = 'Draw a fjord.';

function gateway(strict = false) {
  const sink = new MemorySink();
  return {
    sink,
    gateway: createGateway({ mock: true, strict, deployments: deployments(), records: { sinks: [sink] } }),
  };
}

const droppedImage = expect.objectContaining({ code: 'unsupported_parameter', param: 'modalities' });

describe('a deployment drawing images, called through another API', () => {
  it('chat: the images come back', async () => {
    const { gateway: client } = gateway();
    const response = (await client.createCompletion({
      model,
      messages: [{ role: 'user', content: draw }],
    })) as CompletionResponse;
    expect(response.choices[0]!.message.images).toHaveLength(1);
    expect(response.switchyard.warnings).not.toContainEqual(droppedImage);
  });

  it('Messages API: "image" dropped with a warning in the answer and the record, no image made', async () => {
    const { gateway: client, sink } = gateway();
    const message = await client.createMessage({ model, max_tokens: 200, messages: [{ role: 'user', content: draw }] });
    expect(message.switchyard.warnings).toContainEqual(droppedImage);
    await client.flush();
    const [record] = sink.records();
    expect(record!.warnings).toContainEqual(droppedImage);
    expect(record!.output?.images).toBeUndefined();
  });

  it('Responses API: the same', async () => {
    const { gateway: client, sink } = gateway();
    const response = await client.createResponse({ model, input: draw });
    expect(response.switchyard.warnings).toContainEqual(droppedImage);
    await client.flush();
    expect(sink.records()[0]!.warnings).toContainEqual(droppedImage);
  });

  it('an error under strict, before any model is asked', async () => {
    const { gateway: client } = gateway(true);
    await expect(
      client.createMessage({ model, max_tokens: 200, messages: [{ role: 'user', content: draw }] }),
    ).rejects.toThrow(/modalities/);
  });
});
