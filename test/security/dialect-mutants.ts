/**
 * Mutants of valid dialect bodies for the fuzz test: values of the wrong type, nulls, huge numbers, keys removed or
 * added, item types swapped, items duplicated; one to three mutations each, drawn from a seeded PRNG.
 */
const TYPES = [
  'message',
  'function_call',
  'function_call_output',
  'reasoning',
  'item_reference',
  'input_text',
  'output_text',
  'input_image',
  'input_file',
  'text',
  'image',
  'document',
  'tool_use',
  'tool_result',
  'thinking',
  'redacted_thinking',
  'base64',
  'url',
  'file',
  'function',
  'custom',
  'web_search',
  'json_schema',
  'json_object',
  'enabled',
  'adaptive',
  'auto',
  'any',
  'tool',
  'none',
  'allowed_tools',
  'summary_text',
  'refusal',
  'search_result',
];
const KEYS = [
  'model',
  'input',
  'instructions',
  'messages',
  'system',
  'max_tokens',
  'max_output_tokens',
  'tools',
  'tool_choice',
  'role',
  'content',
  'type',
  'text',
  'source',
  'input_schema',
  'parameters',
  'name',
  'call_id',
  'arguments',
  'output',
  'thinking',
  'reasoning',
  'metadata',
  'stream',
  'temperature',
  'top_p',
  'top_k',
  'stop_sequences',
  'text',
  'format',
  'cache_control',
  'previous_response_id',
  'output_config',
  'encrypted_content',
  'tool_use_id',
  'image_url',
  'id',
];

function weird(random: () => number): unknown {
  const values: unknown[] = [
    null,
    true,
    false,
    0,
    -1,
    1.5,
    1e308,
    -1e308,
    2 ** 53 + 2,
    '',
    'x',
    'user',
    'assistant',
    'system',
    'tool',
    'developer',
    [],
    [null],
    [1, 'a'],
    {},
    { type: 'x' },
    { role: 'user' },
    'x'.repeat(5000),
    '\u0000\uD800',
    [[[[[[[[[[]]]]]]]]]],
    { a: { b: { c: {} } } },
    TYPES[Math.floor(random() * TYPES.length)],
  ];
  return values[Math.floor(random() * values.length)];
}

type Slot = { parent: Record<string, unknown> | unknown[]; key: string | number };

function slots(value: unknown, into: Slot[] = []): Slot[] {
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      into.push({ parent: value, key: index });
      slots(item, into);
    });
  } else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      into.push({ parent: value as Record<string, unknown>, key });
      slots(item, into);
    }
  }
  return into;
}

/** A deep copy of one of `bases` with one to three mutations. */
export function mutant(bases: ReadonlyArray<Record<string, unknown>>, random: () => number): unknown {
  const body: unknown = structuredClone(bases[Math.floor(random() * bases.length)]);
  const count = 1 + Math.floor(random() * 3);
  for (let i = 0; i < count; i++) {
    const all = slots(body);
    const slot = all[Math.floor(random() * all.length)]!;
    const set = (value: unknown) => ((slot.parent as Record<string | number, unknown>)[slot.key] = value);
    const pick = random();
    const current = (slot.parent as Record<string | number, unknown>)[slot.key];
    if (pick < 0.45) set(weird(random));
    else if (pick < 0.6) {
      if (Array.isArray(slot.parent)) slot.parent.splice(slot.key as number, 1);
      else delete slot.parent[slot.key];
    } else if (pick < 0.72 && current && typeof current === 'object' && !Array.isArray(current))
      (current as Record<string, unknown>)[KEYS[Math.floor(random() * KEYS.length)]!] = weird(random);
    else if (pick < 0.86 && slot.key === 'type') set(TYPES[Math.floor(random() * TYPES.length)]);
    else if (pick < 0.93 && Array.isArray(slot.parent)) slot.parent.push(structuredClone(current));
    else if (pick < 0.97) (body as Record<string, unknown>)[KEYS[Math.floor(random() * KEYS.length)]!] = weird(random);
    else return weird(random);
  }
  return body;
}
