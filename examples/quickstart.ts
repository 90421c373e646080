/**
 * Quickstart: run with `npm run demo`. It uses the simulator (`mock: true`), so it needs no keys and no network.
 * Remove `mock: true` and set OPENAI_API_KEY / ANTHROPIC_API_KEY / GEMINI_API_KEY … to call the real providers.
 */
import { createGateway, ModelNotFoundError } from 'switchyard-llm';

const gateway = createGateway({ mock: true });

// 1. The catalog: every model, with prices, limits and capabilities.
const models = gateway.listModels();
const reasoning = gateway.listModels({ reasoning: true });
console.log(`${models.data.length} model ids, ${reasoning.data.length} of them reason.`);

// 2. A completion: exactly the OpenAI request and response shapes. Switching models means changing `model`.
for (const model of ['gpt-sol-latest', 'claude-sonnet-latest', 'gemini-flash-latest']) {
  const response = await gateway.createCompletion({
    model,
    messages: [{ role: 'user', content: 'Write a haiku about {{topic}}.' }],
    input: { topic: 'railway switchyards' },
    metadata: { agent_id: 'haiku-writer' },
  });
  console.log(`${response.model} via ${response.switchyard.provider}: ${response.choices[0]!.message.content}`);
}

// 3. Streaming, with reasoning on a reasoning model.
const stream = await gateway.createCompletion({
  model: 'gpt-sol-latest',
  messages: [{ role: 'user', content: 'Why do trains need switchyards?' }],
  reasoning: { effort: 'low' },
  stream: true,
  stream_options: { include_usage: true },
});
let section = '';
for await (const chunk of stream) {
  const delta = chunk.choices[0]?.delta;
  for (const [name, text] of [
    ['thinking', delta?.reasoning_content],
    ['answer', delta?.content],
  ] as const) {
    if (!text) continue;
    if (section !== name) process.stdout.write(`\n[${(section = name)}] `);
    process.stdout.write(text);
  }
  if (chunk.usage)
    console.log(
      `\n${chunk.usage.completion_tokens} completion tokens, ` +
        `${chunk.usage.completion_tokens_details?.reasoning_tokens} of them reasoning.`,
    );
}

// 4. Errors are typed and say what to do.
try {
  await gateway.createCompletion({ model: 'gpt-sol-lates', messages: [{ role: 'user', content: 'hi' }] });
} catch (error) {
  if (error instanceof ModelNotFoundError) console.log(`${error.status} ${error.code}: ${error.message}`);
}
