import { encodeReasoningState } from '../../src/dialects/responses/reasoning-state.ts';

/**
 * The most expensive bodies of each dialect that fit in `size` bytes and in the bounds (10,000 entries a list):
 * the shapes that were quadratic (function calls and reasoning items of one assistant turn), and the most entries
 * a body can hold (many tiny content parts).
 */

/** Entries of `make(index, pad)` until the JSON of the list is about `size` bytes. */
function fill(count: number, size: number, make: (index: number, pad: string) => unknown): unknown[] {
  const bare = JSON.stringify(Array.from({ length: count }, (_, index) => make(index, ''))).length;
  const pad = 'x'.repeat(Math.max(0, Math.floor((size - bare) / count)));
  return Array.from({ length: count }, (_, index) => make(index, pad));
}

const ITEMS = 10_000;

export function worstResponsesBodies(size: number): Record<string, () => Record<string, unknown>> {
  const state = (pad: string) =>
    encodeReasoningState([{ type: 'reasoning.text', format: 'anthropic-claude-v1', text: pad, signature: 's' }]);
  const call = (index: number, pad: string) => ({
    type: 'function_call',
    call_id: `call_${index}`,
    name: 'f',
    arguments: `{"a":"${pad}"}`,
  });
  // A part is 32 bytes of JSON, a message around it 40.
  const tinyParts = Math.floor((size / ITEMS - 40) / 32);
  return {
    'one turn of 10,000 function calls': () => ({ model: 'gpt-4o-latest', input: fill(ITEMS, size, call) }),
    'one turn of 10,000 reasoning items': () => ({
      model: 'gpt-4o-latest',
      input: fill(ITEMS, size * 0.72, (_, pad) => ({ type: 'reasoning', summary: [], encrypted_content: state(pad) })),
    }),
    'function calls and reasoning items interleaved': () => ({
      model: 'gpt-4o-latest',
      input: fill(ITEMS, size * 0.85, (index, pad) =>
        index % 2 ? call(index, pad) : { type: 'reasoning', summary: [], encrypted_content: state(pad) },
      ),
    }),
    'the most content parts (10,000 messages of tiny parts)': () => ({
      model: 'gpt-4o-latest',
      input: Array.from({ length: ITEMS }, (_, index) => ({
        role: index % 2 ? 'assistant' : 'user',
        content: Array.from({ length: tinyParts }, () => ({
          type: index % 2 ? 'output_text' : 'input_text',
          text: '',
        })),
      })),
    }),
  };
}

export function worstMessagesBodies(size: number): Record<string, () => Record<string, unknown>> {
  // A block is 26 bytes of JSON, a message around it 40.
  const tinyBlocks = Math.floor((size / ITEMS - 40) / 26);
  return {
    'one assistant turn of 10,000 tool_use blocks': () => ({
      model: 'gpt-4o-latest',
      max_tokens: 100,
      messages: [
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: fill(ITEMS, size, (index, pad) => ({
            type: 'tool_use',
            id: `t${index}`,
            name: 'f',
            input: { pad },
          })),
        },
      ],
    }),
    'one assistant turn of 10,000 thinking blocks': () => ({
      model: 'gpt-4o-latest',
      max_tokens: 100,
      messages: [
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: fill(ITEMS, size, (_, pad) => ({ type: 'thinking', thinking: pad, signature: 's' })),
        },
      ],
    }),
    'the most content blocks (10,000 messages of tiny blocks)': () => ({
      model: 'gpt-4o-latest',
      max_tokens: 100,
      messages: Array.from({ length: ITEMS }, (_, index) => ({
        role: index % 2 ? 'assistant' : 'user',
        content: Array.from({ length: tinyBlocks }, () => ({ type: 'text', text: '' })),
      })),
    }),
    '10,000 tool results': () => ({
      model: 'gpt-4o-latest',
      max_tokens: 100,
      messages: fill(ITEMS, size, (index, pad) => ({
        role: index % 2 ? 'assistant' : 'user',
        content:
          index % 2
            ? [{ type: 'tool_use', id: `t${index}`, name: 'f', input: { pad } }]
            : [{ type: 'tool_result', tool_use_id: `t${index - 1}`, content: [{ type: 'text', text: pad }] }],
      })),
    }),
  };
}
