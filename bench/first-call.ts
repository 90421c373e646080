/**
 * The first call to one provider in a fresh process, then a second one: the difference is what the lazy adapter
 * costs (SDK import, client construction; the connection is opened by both). Switchyard itself is imported
 * before the clock starts. Prints `{ "firstMs": …, "secondMs": … }`. Started by bench/run.ts:
 *
 *   node bench/first-call.ts --port 12345 --target openai-sdk|openai|anthropic|google[-pooled]
 */
import { parseArgs } from 'node:util';
import { createGateway } from '../src/index.ts';
import { createPooledFetch } from '../src/internal/http-transport.ts';

const { values: args } = parseArgs({ options: { port: { type: 'string' }, target: { type: 'string' } } });
const origin = `http://127.0.0.1:${args.port}`;
const apiKey = 'sk-bench-0000000000000000';
const messages = [{ role: 'user' as const, content: 'Which city is the capital of France?' }];

async function timed(call: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await call();
  return performance.now() - started;
}

let firstMs: number;
let secondMs: number;
if (args.target === 'openai-sdk') {
  // What a user of the SDK alone pays: its import, the client, the call.
  let client: import('openai').OpenAI | undefined;
  const call = async () => {
    if (!client) {
      const { default: OpenAI } = await import('openai');
      client = new OpenAI({ apiKey, baseURL: `${origin}/v1` });
    }
    return client.chat.completions.create({ model: 'gpt-4o-mini', messages });
  };
  firstMs = await timed(call);
  secondMs = await timed(call);
} else {
  // `<provider>-pooled`: the provider's SDK gets createPooledFetch() instead of its default fetch.
  const [provider, pooled] = (args.target ?? '').split('-');
  const model = (
    { openai: 'gpt-4o-mini-latest', anthropic: 'claude-sonnet-latest', google: 'gemini-2.5-flash' } as Record<
      string,
      string
    >
  )[provider ?? ''];
  if (!model || (pooled !== undefined && pooled !== 'pooled')) throw new Error(`unknown --target ${args.target}`);
  const transport = pooled ? { fetch: createPooledFetch() } : {};
  const gateway = createGateway({
    env: {},
    records: false,
    providers: {
      openai: { apiKey, baseURL: `${origin}/v1`, ...transport },
      anthropic: { apiKey, baseURL: origin, ...transport },
      google: { apiKey, baseURL: `${origin}/v1beta`, ...transport },
    },
  });
  const call = () => gateway.createCompletion({ model, messages, max_tokens: 64 });
  firstMs = await timed(call);
  secondMs = await timed(call);
}
process.stdout.write(`${JSON.stringify({ firstMs, secondMs })}\n`);
process.exit(0);
