/**
 * The valid chat-completion requests the fuzzing of fuzz.test.ts and serve-fuzz.test.ts starts from (request-fuzz.ts
 * mutates them): one per feature area, tools and their results, schemas, reasoning, templates, streams, fallbacks,
 * agent prefixes, sampling parameters.
 */
const tools = [
  {
    type: 'function',
    function: {
      name: 'lookup',
      description: 'Look a city up',
      parameters: {
        type: 'object',
        properties: { city: { type: 'string' }, limit: { type: 'integer', minimum: 1 } },
        required: ['city'],
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'book',
      parameters: { type: 'object', properties: { when: { type: 'string', format: 'date-time' } } },
    },
  },
];
const schema = {
  type: 'object',
  properties: {
    answer: { type: 'string', minLength: 1 },
    score: { type: 'number', minimum: 0, maximum: 1 },
    tags: { type: 'array', items: { enum: ['a', 'b'] }, maxItems: 3 },
    nested: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
  },
  required: ['answer'],
  additionalProperties: false,
};

/** Valid requests the mutations start from: one per feature area. */
export const BASES: Record<string, unknown>[] = [
  { model: 'gpt-4o-latest', messages: [{ role: 'user', content: 'Hello there' }] },
  {
    model: 'claude-haiku-4-5',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi' },
    ],
    temperature: 0.2,
    max_tokens: 100,
    stop: ['\n\n'],
  },
  {
    model: 'gemini-2.5-flash',
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
        ],
      },
    ],
  },
  {
    model: 'gpt-4o-latest',
    messages: [{ role: 'user', content: 'Weather in Paris?' }],
    tools,
    tool_choice: { type: 'function', function: { name: 'lookup' } },
    parallel_tool_calls: false,
  },
  {
    model: 'gpt-4o-latest',
    messages: [
      { role: 'user', content: 'Weather?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"city":"Paris"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '{"temp":21}' },
    ],
    tools,
  },
  {
    model: 'gpt-4o-latest',
    messages: [{ role: 'user', content: 'Rate it' }],
    response_format: { type: 'json_schema', json_schema: { name: 'rating', schema, strict: true } },
  },
  {
    model: 'claude-haiku-4-5',
    messages: [{ role: 'user', content: 'JSON please' }],
    response_format: { type: 'json_object' },
  },
  { model: 'o3-latest', messages: [{ role: 'user', content: 'Think' }], reasoning: { effort: 'low' } },
  {
    model: 'claude-haiku-4-5',
    messages: [{ role: 'user', content: 'Think' }],
    reasoning: { budget: 2048 },
    max_completion_tokens: 4096,
  },
  {
    model: 'gpt-4o-latest',
    messages: [{ role: 'user', content: 'Summarise {{doc.title}} for {{ who }}' }],
    input: { doc: { title: 'Rail' }, who: 'Ada' },
  },
  {
    model: 'gpt-4o-latest',
    messages: [{ role: 'user', content: 'Stream me' }],
    stream: true,
    stream_options: { include_usage: true },
  },
  {
    model: 'researcher/anthropic/claude-haiku-4-5',
    messages: [{ role: 'user', content: 'Hi' }],
    metadata: { trace_id: 't-1', workflow_name: 'w' },
    fallbacks: ['gpt-4o-latest'],
  },
  {
    model: 'gpt-4o-latest',
    messages: [
      { role: 'developer', content: 'x' },
      { role: 'user', content: 'y' },
    ],
    n: 2,
    seed: 7,
    logprobs: true,
    top_logprobs: 3,
    presence_penalty: -1,
    frequency_penalty: 1,
    user: 'u',
    logit_bias: { '50256': -100 },
  },
  {
    model: 'gpt-4o-latest',
    messages: [{ role: 'user', content: 'Rate it' }],
    stream: true,
    response_format: { type: 'json_schema', json_schema: { name: 'rating', schema } },
    structured_output_fallback: 'claude-haiku-4-5',
  },
  {
    model: 'claude-haiku-4-5',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi {{name}}' },
    ],
    input: { name: 'Ada' },
    temperature: 0.3,
  },
  {
    model: 'gemini-2.5-flash',
    messages: [{ role: 'user', content: 'Stream' }],
    stream: true,
    stream_options: { include_usage: true },
  },
  {
    model: 'gpt-4o-latest',
    messages: [{ role: 'user', content: 'Weather?' }],
    tools: [
      {
        type: 'function',
        function: {
          name: 'lookup',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      },
    ],
    tool_choice: 'required',
  },
  {
    model: 'gpt-4o-latest',
    messages: [{ role: 'user', content: 'Rate' }],
    response_format: {
      type: 'json_schema',
      json_schema: {
        name: 'rating',
        schema: {
          type: 'object',
          properties: { score: { type: 'integer', minimum: 1, maximum: 5 } },
          required: ['score'],
          additionalProperties: false,
        },
      },
    },
  },
  {
    model: 'analyst/gpt-4o-latest',
    messages: [{ role: 'user', content: 'Hi' }],
    metadata: { trace_id: 't-fuzz', workflow_name: 'fuzz' },
    fallbacks: ['claude-haiku-4-5'],
  },
];
