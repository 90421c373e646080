/**
 * The fixed answers of the benchmark: served by bench/mock-server.ts over HTTP, and handed out in-process by the
 * stub fetch of bench/load.ts (which isolates client-side overhead from the network).
 */
/** The chat completion request the server benchmarks send, as its JSON body. */
export const SERVE_REQUEST_BODY = JSON.stringify({
  model: 'gpt-4o-mini',
  messages: [
    { role: 'system', content: 'You answer with JSON describing a city.' },
    { role: 'user', content: 'The capital of France, please.' },
  ],
});

/** The content is JSON valid for bench/load.ts's schema, so one reply serves the plain and the schema benchmarks. */
export const CONTENT = '{"city":"Paris","country":"France","population":2102650}';

export const completion = Buffer.from(
  JSON.stringify({
    id: 'chatcmpl-bench',
    object: 'chat.completion',
    created: 1_760_000_000,
    model: 'gpt-4o-mini-2024-07-18',
    system_fingerprint: 'fp_bench',
    service_tier: 'default',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: CONTENT, refusal: null, annotations: [] },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage: {
      prompt_tokens: 24,
      completion_tokens: 18,
      total_tokens: 42,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: {
        reasoning_tokens: 0,
        audio_tokens: 0,
        accepted_prediction_tokens: 0,
        rejected_prediction_tokens: 0,
      },
    },
  }),
);

/** 16 content deltas, as OpenAI sends them: role first, then text, then finish_reason, then the usage chunk. */
const STREAM_PIECES = [
  '{"',
  'city',
  '":"',
  'Paris',
  '","',
  'country',
  '":"',
  'France',
  '","',
  'population',
  '":',
  '210',
  '265',
  '0',
  '}',
  '',
];
const chunk = (delta: Record<string, unknown>, finish: string | null, usage: unknown = undefined) =>
  `data: ${JSON.stringify({
    id: 'chatcmpl-bench',
    object: 'chat.completion.chunk',
    created: 1_760_000_000,
    model: 'gpt-4o-mini-2024-07-18',
    system_fingerprint: 'fp_bench',
    service_tier: 'default',
    choices: usage ? [] : [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...(usage ? { usage } : {}),
  })}\n\n`;
/** Sent at once: the first content chunk, so time-to-first-chunk does not wait for the rest. */
export const streamHead = Buffer.from(
  chunk({ role: 'assistant', content: '', refusal: null }, null) + chunk({ content: STREAM_PIECES[0] }, null),
);
/** Sent on the next turn of the server's event loop (a separate TCP write). */
export const streamTail = Buffer.from(
  STREAM_PIECES.slice(1)
    .map((piece) => chunk({ content: piece }, null))
    .join('') +
    chunk({}, 'stop') +
    chunk({}, null, { prompt_tokens: 24, completion_tokens: 18, total_tokens: 42 }) +
    'data: [DONE]\n\n',
);

export const anthropicMessage = Buffer.from(
  JSON.stringify({
    id: 'msg_bench',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content: [{ type: 'text', text: CONTENT, citations: null }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    stop_details: null,
    container: null,
    diagnostics: null,
    usage: {
      input_tokens: 24,
      output_tokens: 18,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
      output_tokens_details: null,
      server_tool_use: null,
      service_tier: 'standard',
      inference_geo: null,
      speed: 'standard',
    },
  }),
);

export const geminiResponse = Buffer.from(
  JSON.stringify({
    candidates: [{ content: { role: 'model', parts: [{ text: CONTENT }] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 24, candidatesTokenCount: 18, totalTokenCount: 42 },
    modelVersion: 'gemini-2.5-flash',
    responseId: 'bench',
  }),
);
