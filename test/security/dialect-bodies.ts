import { encodeReasoningState } from '../../src/dialects/responses/reasoning-state.ts';
import { api, type TestServer } from '../server/start-test-server.ts';

/** Valid bodies of both dialects, and what the dialect tests send them with and read back. */

const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
const state = encodeReasoningState([
  { type: 'reasoning.text', format: 'anthropic-claude-v1', text: 't', signature: 's' },
]);
const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

export const RESPONSES_BODIES: ReadonlyArray<Record<string, unknown>> = [
  { model: 'gpt-4o-latest', input: 'Hello', instructions: 'Be brief.', max_output_tokens: 50, temperature: 0.5 },
  {
    model: 'claude-haiku-4-5',
    instructions: 'Use the tool.',
    input: [
      { role: 'user', content: [{ type: 'input_text', text: 'Weather in Lyon?' }] },
      { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'hm' }], encrypted_content: state },
      { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Lyon"}' },
      { type: 'function_call_output', call_id: 'call_1', output: [{ type: 'input_text', text: 'Sunny' }] },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'It is sunny.' }] },
      { role: 'developer', content: 'Answer in French.' },
      { type: 'message', role: 'user', content: [{ type: 'input_image', image_url: `data:image/png;base64,${png}` }] },
    ],
    tools: [{ type: 'function', name: 'get_weather', description: 'Weather', parameters: schema, strict: false }],
    tool_choice: { type: 'function', name: 'get_weather' },
    reasoning: { effort: 'low', summary: 'auto' },
    metadata: { agent_id: 'fuzz' },
    parallel_tool_calls: true,
    include: ['reasoning.encrypted_content'],
    stream: false,
  },
  {
    model: 'gpt-4o-latest',
    input: [{ role: 'user', content: 'Give me JSON' }],
    text: { format: { type: 'json_schema', name: 'city', schema, strict: false }, verbosity: 'low' },
    top_p: 0.9,
    user: 'u1',
    stream: true,
  },
];

export const MESSAGES_BODIES: ReadonlyArray<Record<string, unknown>> = [
  { model: 'claude-haiku-4-5', max_tokens: 100, system: 'Be brief.', messages: [{ role: 'user', content: 'Hi' }] },
  {
    model: 'claude-haiku-4-5',
    max_tokens: 200,
    system: [{ type: 'text', text: 'Use the tool.', cache_control: { type: 'ephemeral' } }],
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Weather in Lyon?' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
          { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'notes' }, title: 'n' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Look it up.', signature: 'sig' },
          { type: 'redacted_thinking', data: 'opaque' },
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Lyon' } },
        ],
      },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'Sunny' }] }],
      },
    ],
    tools: [{ name: 'get_weather', description: 'Weather', input_schema: schema }],
    tool_choice: { type: 'auto', disable_parallel_tool_use: true },
    thinking: { type: 'enabled', budget_tokens: 1024 },
    stop_sequences: ['END'],
    metadata: { user_id: 'u1' },
    top_k: 5,
  },
  {
    model: 'gpt-4o-latest',
    max_tokens: 100,
    messages: [{ role: 'user', content: [{ type: 'text', text: 'JSON please' }] }],
    output_config: { format: { type: 'json_schema', schema } },
    temperature: 0.2,
    stream: true,
  },
];

export type Dialect = 'responses' | 'messages';

/** One request to a dialect's route; the body as it came back (text), and its status. */
export async function send(
  server: TestServer,
  dialect: Dialect,
  body: unknown,
): Promise<{ status: number; text: string; callId: string | null }> {
  const response = await api(server, `/v1/${dialect}`, {
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, text: await response.text(), callId: response.headers.get('x-switchyard-call-id') };
}

/** The error body of the dialect, or a reason it is not one. */
export function dialectError(dialect: Dialect, text: string): { message: string; param?: string | null } | string {
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    return `not JSON: ${text.slice(0, 200)}`;
  }
  if (dialect === 'messages') {
    const ok =
      body?.type === 'error' && typeof body.error?.type === 'string' && typeof body.error?.message === 'string';
    return ok ? { message: body.error.message } : `not Anthropic's error shape: ${text.slice(0, 200)}`;
  }
  const ok = typeof body?.error?.message === 'string' && typeof body.error.type === 'string';
  return ok
    ? { message: body.error.message, param: body.error.param }
    : `not OpenAI's error shape: ${text.slice(0, 200)}`;
}

/** A seeded PRNG (mulberry32): the same seed, the same mutants. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
