// Run by validator-engines.test.ts as `node --disallow-code-generation-from-strings`, where `new Function` throws as
// in a Worker: a structured call with a repair and a correction, on the engine `auto` chooses, and `ajv` asked for.
import { createGateway } from '../../src/index.ts';
import { createMockProvider } from '../../src/testing/index.ts';

const print = (line: object) => console.log(JSON.stringify(line));
try {
  new Function('return 1');
  print({ codeGeneration: true });
} catch (error) {
  print({ codeGeneration: false, error: (error as Error).name });
}

const schema = {
  type: 'object',
  properties: { name: { type: 'string' }, email: { type: 'string', format: 'email' } },
  required: ['name', 'email'],
  additionalProperties: false,
};
const corrections: string[] = [];
// First answer: broken JSON (repaired) still missing `email`; the correction then gets a valid one.
const mock = createMockProvider({
  replies: [{ content: '```json\n{"name": "Ada",' }, { content: '{"name":"Ada","email":"ada@example.com"}' }],
});
const gateway = createGateway({ mock });
const response = await gateway.createCompletion({
  model: 'claude-sonnet-4-5',
  messages: [{ role: 'user', content: 'Ada, ada@example.com' }],
  response_format: { type: 'json_schema', json_schema: { name: 'contact', schema } },
});
for (const call of mock.calls) corrections.push(String(call.body.messages.at(-1)?.content ?? ''));
print({ content: response.choices[0]?.message.content, corrections: corrections.slice(1) });

try {
  createGateway({ mock, schemaValidator: 'ajv' });
  print({ ajv: 'accepted' });
} catch (error) {
  print({ ajv: (error as Error).message });
}
