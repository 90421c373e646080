/**
 * One scenario, run unchanged in every runtime the library claims (issue 38): Node, Bun, Deno, Cloudflare's workerd
 * (no `nodejs_compat`) and a Chromium page. It uses web standards only — no `process`, `Buffer` or `node:` module —
 * and receives the library and the fake providers' base URLs from the runtime's entry, so the same file is imported
 * by a script, bundled into a Worker or into a page.
 */
import type * as Switchyard from 'switchyard-llm';
import type * as Stores from 'switchyard-llm/stores';

/** What the scenario needs of the library: the caller's entry and the stores', as each runtime loads them. */
export type Library = Pick<typeof Switchyard, 'createGateway'> &
  Pick<typeof Stores, 'MemoryDeploymentStore' | 'CallbackSink'>;

/** The fake providers' base URLs, as each provider's `*_BASE_URL` takes them. */
export interface FakeProviders {
  openai: string;
  anthropic: string;
  gemini: string;
}

export interface Row {
  check: string;
  ok: boolean;
  detail: string;
}

/** Sent in a user message, it makes the fake providers answer as the host scripted (scenario-host.ts). */
export const SCRIPT = {
  /** The fake OpenAI server answers 503 (a provider outage). */
  failOpenAI: '[[fail-openai]]',
  /** The fake OpenAI server answers this JSON text as the content. */
  answerJson: (json: string) => `[[answer-json:${json}]]`,
};

const SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string' }, population: { type: 'integer', minimum: 0 } },
  required: ['city', 'population'],
  additionalProperties: false,
};

const user = (content: string) => [{ role: 'user' as const, content }];

export async function runScenario(library: Library, fakes: FakeProviders): Promise<Row[]> {
  const { createGateway, MemoryDeploymentStore, CallbackSink } = library;
  const env = {
    OPENAI_API_KEY: 'sk-scenario',
    OPENAI_BASE_URL: fakes.openai,
    ANTHROPIC_API_KEY: 'sk-ant-scenario',
    ANTHROPIC_BASE_URL: fakes.anthropic,
    GEMINI_API_KEY: 'gemini-scenario',
    GEMINI_BASE_URL: fakes.gemini,
  };
  const rows: Row[] = [];
  const check = async (name: string, run: () => Promise<string>) => {
    try {
      rows.push({ check: name, ok: true, detail: await run() });
    } catch (error) {
      const { name: kind, message } = error as Error;
      rows.push({ check: name, ok: false, detail: `${kind}: ${message}`.slice(0, 300) });
    }
  };
  const expect = (condition: unknown, what: string) => {
    if (!condition) throw new Error(`expected ${what}`);
  };
  const streamed = async (stream: AsyncIterable<{ choices: Array<{ delta?: any }> }>) => {
    let content = '';
    let reasoning = '';
    let chunks = 0;
    for await (const chunk of stream) {
      chunks += 1;
      content += chunk.choices[0]?.delta?.content ?? '';
      reasoning += chunk.choices[0]?.delta?.reasoning_content ?? '';
    }
    return { content, reasoning, chunks };
  };

  const simulator = createGateway({ mock: true, records: false });
  await check('simulator: plain', async () => {
    const answer = await simulator.createCompletion({ model: 'gpt-sol-latest', messages: user('Say hello.') });
    const content = answer.choices[0]?.message.content ?? '';
    expect(content.length > 0, 'an answer');
    return content.slice(0, 40);
  });
  await check('simulator: streamed', async () => {
    const stream = await simulator.createCompletion({
      model: 'claude-sonnet-latest',
      messages: user('Hi'),
      stream: true,
    });
    const { content, chunks } = await streamed(stream);
    expect(chunks > 1 && content.length > 0, 'several chunks with text');
    return `${chunks} chunks`;
  });
  await check('simulator: reasoning', async () => {
    const stream = await simulator.createCompletion({
      model: 'claude-sonnet-latest',
      messages: user('Why do trains need switchyards?'),
      reasoning: { effort: 'low' },
      stream: true,
    });
    const { content, reasoning } = await streamed(stream);
    expect(reasoning.length > 0 && content.length > 0, 'reasoning, then an answer');
    return `${reasoning.length} chars of reasoning`;
  });
  await check('simulator: json_schema', async () => {
    const answer = await simulator.createCompletion({
      model: 'gemini-flash-latest',
      messages: user('A city.'),
      response_format: { type: 'json_schema', json_schema: { name: 'city', schema: SCHEMA, strict: true } },
    });
    const parsed = JSON.parse(answer.choices[0]?.message.content ?? '');
    expect(typeof parsed.city === 'string' && Number.isInteger(parsed.population), 'an object of the schema');
    return JSON.stringify(parsed).slice(0, 60);
  });

  const wire = createGateway({ env, records: false, retry: { maxRetries: 0 } });
  for (const [provider, model] of [
    ['openai', 'gpt-sol-latest'],
    ['anthropic', 'claude-sonnet-latest'],
    ['gemini', 'gemini-flash-latest'],
  ] as const) {
    await check(`${provider}: plain`, async () => {
      const answer = await wire.createCompletion({ model, messages: user('hi') });
      const content = answer.choices[0]?.message.content ?? '';
      expect(content.startsWith('Hello from fake'), `the fake ${provider}'s hello, got "${content}"`);
      expect(answer.switchyard.provider === (provider === 'gemini' ? 'google' : provider), 'the provider named');
      return content;
    });
    await check(`${provider}: streamed`, async () => {
      const { content, chunks } = await streamed(
        await wire.createCompletion({ model, messages: user('hi'), stream: true }),
      );
      expect(content.startsWith('Hello from fake'), `the fake ${provider}'s hello, got "${content}"`);
      return `${chunks} chunks`;
    });
  }

  await check('structured output: validated', async () => {
    const answer = await wire.createCompletion({
      model: 'gpt-sol-latest',
      messages: user(`A city. ${SCRIPT.answerJson('{"city":"Basel","population":177000}')}`),
      response_format: { type: 'json_schema', json_schema: { name: 'city', schema: SCHEMA, strict: true } },
    });
    const parsed = JSON.parse(answer.choices[0]?.message.content ?? '');
    expect(parsed.city === 'Basel', 'the parsed answer');
    return answer.choices[0]?.message.content ?? '';
  });
  await check('structured output: invalid caught', async () => {
    try {
      await wire.createCompletion({
        model: 'gpt-sol-latest',
        messages: user(`A city. ${SCRIPT.answerJson('{"city":"Basel","population":-3}')}`),
        response_format: { type: 'json_schema', json_schema: { name: 'city', schema: SCHEMA, strict: true } },
      });
    } catch (error) {
      const { code, message } = error as { code?: string; message: string };
      expect(code === 'structured_output_invalid' || /schema|minimum/i.test(message), `a schema error, got ${code}`);
      return `${code}: ${message.slice(0, 80)}`;
    }
    throw new Error('expected the invalid answer to be refused');
  });

  await check('fallback across providers', async () => {
    const answer = await wire.createCompletion({
      model: 'gpt-sol-latest',
      messages: user(`hi ${SCRIPT.failOpenAI}`),
      fallbacks: ['claude-sonnet-latest'],
    });
    const attempts = answer.switchyard.attempts.map((attempt) => `${attempt.provider}:${attempt.outcome}`);
    expect(answer.switchyard.provider === 'anthropic', 'Anthropic to answer');
    expect(attempts.length === 2, `two attempts, got ${attempts.join(', ')}`);
    return attempts.join(' → ');
  });

  await check('deployment from a memory store', async () => {
    const deployments = new MemoryDeploymentStore([
      {
        id: 'greeter:production#1',
        agent_id: 'greeter',
        environment: 'production',
        number: 1,
        created_at: '2026-11-01T00:00:00Z',
        version: { model: 'claude-sonnet-latest', messages: [{ role: 'user', content: 'Greet {{name}}.' }] },
      },
    ]);
    const gateway = createGateway({ env, deployments, records: false });
    const answer = await gateway.createCompletion({
      model: 'switchyard/deployment/greeter:production#1',
      input: { name: 'Ada' },
    });
    expect(answer.switchyard.provider === 'anthropic', 'the pinned model to answer');
    return answer.choices[0]?.message.content ?? '';
  });

  await check('call record to a callback', async () => {
    const records: Array<{ agent_id: string | null; provider: string | null; cost_usd: number | null }> = [];
    const gateway = createGateway({
      env,
      records: { sinks: [new CallbackSink((record) => void records.push(record))] },
    });
    await gateway.createCompletion({
      model: 'gemini-flash-latest',
      messages: user('hi'),
      metadata: { agent_id: 'a1' },
    });
    await gateway.close();
    const [record] = records;
    expect(records.length === 1 && record?.agent_id === 'a1', 'one record of agent a1');
    expect(typeof record?.cost_usd === 'number' && record.cost_usd > 0, 'a priced record');
    return `${record?.provider}, $${record?.cost_usd}`;
  });

  // The query builder and zod load when the records are first queried (chunks of their own in a page's bundle).
  await check('call records queried in memory', async () => {
    const gateway = createGateway({ env });
    const ask = () =>
      gateway.createCompletion({ model: 'gemini-flash-latest', messages: user('hi'), metadata: { agent_id: 'a2' } });
    await ask();
    await ask();
    await gateway.flush();
    const grouped = await gateway.calls.queryCalls!({ filter: { agent_id: 'a2' }, group_by: ['provider'] });
    const [agent] = await gateway.calls.agents();
    expect(
      grouped.data.length === 1 && grouped.data[0]?.count === 2,
      `one group of two calls, got ${JSON.stringify(grouped.data)}`,
    );
    expect(agent?.agent_id === 'a2' && agent.calls === 2, 'the agent summed');
    return `${grouped.data[0]?.provider}: ${grouped.data[0]?.count} calls`;
  });
  return rows;
}

/** The rows as a table, for the runtime's step in CI. */
export function formatRows(runtime: string, rows: Row[]): string {
  const width = Math.max(...rows.map((row) => row.check.length));
  const lines = rows.map((row) => `${row.ok ? 'pass' : 'FAIL'}  ${row.check.padEnd(width)}  ${row.detail}`);
  const passed = rows.filter((row) => row.ok).length;
  return [`${runtime}: ${passed}/${rows.length} passed`, ...lines].join('\n');
}
