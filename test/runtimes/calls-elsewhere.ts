import { createGateway } from '../../src/index.ts';

/**
 * Real calls from another runtime (Bun, Deno), run by other-runtimes.test.ts against its fake servers:
 * `<runtime> calls-elsewhere.ts <openai url> <anthropic url> <gemini url>`. The keys are given in code and no `env`
 * is: on Deno without `--allow-env` the gateway must not throw for reading the environment. Prints one JSON line per
 * call: its text, or what it threw.
 */
const args: string[] = (globalThis as { Deno?: { args: string[] } }).Deno?.args ?? process.argv.slice(2);
const [openai, anthropic, gemini] = args;
const gateway = createGateway({
  providers: {
    openai: { apiKey: 'sk-elsewhere', baseURL: openai },
    anthropic: { apiKey: 'sk-ant-elsewhere', baseURL: anthropic },
    google: { apiKey: 'gemini-elsewhere', baseURL: gemini },
  },
  retry: { maxRetries: 1, initialDelayMs: 1, maxDelayMs: 5 },
});

const calls: Array<[string, string, boolean]> = [
  ['openai', 'openai/gpt-4o-2024-11-20', false],
  ['openai stream', 'openai/gpt-4o-2024-11-20', true],
  ['anthropic', 'anthropic/claude-sonnet-4-5-20250929', false],
  ['anthropic stream', 'anthropic/claude-sonnet-4-5-20250929', true],
  ['gemini', 'google/gemini-2.5-flash', false],
  ['gemini stream', 'google/gemini-2.5-flash', true],
  ['openai 429 then an answer', 'openai/gpt-4o-2024-11-20', false],
  ['openai 400', 'openai/gpt-4o-2024-11-20', false],
];
for (const [name, model, stream] of calls) {
  const request = { model, messages: [{ role: 'user' as const, content: 'Say hello' }] };
  try {
    let text = '';
    if (stream)
      for await (const chunk of await gateway.createCompletion({ ...request, stream: true }))
        text += chunk.choices[0]?.delta.content ?? '';
    else text = (await gateway.createCompletion(request)).choices[0]?.message.content ?? '';
    console.log(JSON.stringify({ name, text }));
  } catch (error) {
    const { name: kind, status, code, message } = error as Record<string, unknown>;
    console.log(JSON.stringify({ name, error: { kind, status, code, message } }));
  }
}
await gateway.flush();
const records = await gateway.calls.list({ limit: 20 });
console.log(JSON.stringify({ name: 'records', ids: records.data.map((record) => record.id) }));
await gateway.close();
