// A strict TypeScript consumer of the package (issue 35, item 9): compiled against the built `.d.ts` by .ci/run and
// against the sources by test/consumer/consumer-types.test.ts, with and without exactOptionalPropertyTypes. It only
// has to type-check; every entry point and the main types are used the way a consumer would.
import {
  type CompletionChunk,
  type CompletionRequest,
  type CompletionResponse,
  createGateway,
  extendCatalog,
  type GatewayOptions,
  type ModelInfo,
  type ModelLifecycle,
  type ProvidersSettings,
  SwitchyardError,
} from 'switchyard-llm';
import type { ProviderDefinition } from 'switchyard-llm/providers';
import { type CallPage, computeCost, type MediaRecord } from 'switchyard-llm/records';
import {
  type KeyLimits,
  type ServeOptions,
  type SpendStore,
  type SwitchyardHandlerOptions,
  startServer,
  type TokenBuckets,
} from 'switchyard-llm/server';
import { MemorySink, PostgresSink, SqliteSink } from 'switchyard-llm/stores';
import { createMockProvider, type MockReply } from 'switchyard-llm/testing';

const providers: ProvidersSettings = {
  openai: { apiKey: process.env.OPENAI_API_KEY, baseURL: process.env.OPENAI_BASE_URL },
  anthropic: {
    keys: [
      { apiKey: 'a', weight: 2 },
      { apiKey: 'b', label: 'spare' },
    ],
  },
  azure: { apiKey: 'k', baseURL: 'https://example.openai.azure.com', apiVersion: '2025-04-01-preview' },
  bedrock: { region: 'us-east-1', credentials: { accessKeyId: 'id', secretAccessKey: 'secret' } },
  vertex: { project: 'p', region: 'us-central1' },
  groq: { apiKey: 'gsk-test', timeoutMs: 30_000 },
};

const replies: MockReply[] = ['first answer'];
const options: GatewayOptions = {
  providers,
  mock: createMockProvider({ replies }),
  fallbacks: ['claude-sonnet-latest'],
  timeoutMs: process.env.TIMEOUT_MS === undefined ? undefined : Number(process.env.TIMEOUT_MS),
  records: { sinks: [new MemorySink(), new SqliteSink(':memory:')], redact: true },
  catalog: extendCatalog([]),
};
const gateway = createGateway(options);

export async function run(): Promise<string | null> {
  const request: CompletionRequest = {
    model: 'gpt-sol-latest',
    messages: [{ role: 'user', content: 'ping' }],
    reasoning_effort: 'low',
    max_tokens: 100,
  };
  const answer: CompletionResponse = await gateway.createCompletion({ ...request, stream: false });
  for (const warning of answer.switchyard.warnings) console.log(warning.code, warning.message);
  const stream = await gateway.createCompletion({ model: 'gpt-sol-latest', messages: [], stream: true });
  for await (const chunk of stream) {
    const typed: CompletionChunk = chunk;
    console.log(typed.choices[0]?.delta.content);
  }
  const models: ModelInfo[] = gateway.listModels({ reasoning: true }).data;
  const stage: ModelLifecycle | undefined = models[0]?.lifecycle;
  console.log(stage, new PostgresSink('postgres://localhost/records'));
  const serve: ServeOptions = { port: 0, dataDir: '/tmp/switchyard', mock: true, gateway: { providers } };
  // The types serve's options and answers use can be named, for a consumer's own declarations (TS2742 otherwise).
  const limits: KeyLimits = { requests_per_minute: 60, budgets: ['5/day'] };
  const handler: Partial<SwitchyardHandlerOptions> = {};
  const stores: [SpendStore | undefined, TokenBuckets | undefined] = [handler.spendStore, handler.rateBuckets];
  const server = await startServer(serve);
  await server.close();
  const page: CallPage = await gateway.calls.list({ limit: 1, agent_id: 'a', trace_id: 't', workflow_name: 'w' });
  const media: MediaRecord | undefined = page.data[0]?.media;
  console.log(limits, stores, media);
  const attributed: Array<string | null> = page.data.flatMap((call) => [
    call.agent_id,
    call.trace_id,
    call.workflow_name,
  ]);
  const timeline = await gateway.calls.workflowTimeline?.('t', 10);
  const workflowName: string | null | undefined = timeline?.calls[0]?.workflow_name;
  const definitions: ReadonlyArray<ProviderDefinition> = [];
  console.log(
    page.data.length,
    attributed,
    workflowName,
    definitions.length,
    computeCost(answer.usage, { input: 1, output: 2, cached_input: 0 }),
  );
  try {
    await gateway.createCompletion({ model: 'no-such-model', messages: [] });
  } catch (error) {
    // True for an error of the other build too (ESM and CommonJS both loaded), where `instanceof` is not.
    if (SwitchyardError.is(error)) return error.message;
  }
  return answer.choices[0]?.message.content ?? null;
}
