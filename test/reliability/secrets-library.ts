import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import * as otelSdk from '@opentelemetry/sdk-trace-base';
import { expect } from 'vitest';
import {
  type CompletionChunk,
  createGateway,
  type Gateway,
  type GatewayOptions,
  JsonlFileSink,
  MemorySink,
  OpenTelemetrySink,
} from '../../src/index.ts';
import { type FakeDeploymentServer, startFakeDeploymentServer } from '../deployments/fake-deployment-server.ts';
import { captureOutput } from '../helpers/capture-output.ts';
import { type Backends, bounded, catalog, errorBody, MODELS } from './harness.ts';
import { PROVIDER_KEYS, providersWithSecrets, type SecretScenario } from './secret-scenarios.ts';

/**
 * The secrets table (secret-scenarios.ts) in process: each scenario through `createCompletion`, records going to a
 * MemorySink, a JsonlFileSink and an OpenTelemetrySink (InMemorySpanExporter), console, stdout, stderr and process
 * warnings captured; then two calls only a library has: a key from the environment, a deployment store that echoes
 * its key. Everything observable is filed under its channel, to be searched for every key.
 */
export const LIBRARY_KEYS = {
  ...PROVIDER_KEYS,
  openaiFromEnv: 'env-SECRET-openai-key-93c1d7',
  deploymentStore: 'store-SECRET-key-5e8f0a2b',
} as const;
export const CAPTURE_MARKER = 'secrets.test: console capture is on';

export interface LibraryRun {
  channels: Record<string, string[]>;
  scenarios: string[];
  deploymentServer: FakeDeploymentServer;
  close(): Promise<void>;
}

export async function runSecretsInProcess(backends: Backends, table: SecretScenario[]): Promise<LibraryRun> {
  const channels: Record<string, string[]> = {
    'error.message': [],
    'JSON.stringify(error)': [],
    'error.attempts': [],
    'String(error.cause)': [],
    'util.inspect(error) (what console.error(error) prints)': [],
    'responses and stream chunks': [],
    'records (MemorySink)': [],
    'JSONL file': [],
    'OpenTelemetry spans': [],
    'console, stdout, stderr, process warnings': [],
  };
  const scenarios: string[] = [];
  const deploymentServer = await startFakeDeploymentServer([]);
  const directory = await mkdtemp(join(tmpdir(), 'switchyard-secrets-'));
  const exporter = new otelSdk.InMemorySpanExporter();
  const tracerProvider = new otelSdk.BasicTracerProvider({
    spanProcessors: [new otelSdk.SimpleSpanProcessor(exporter)],
  });
  const memories: MemorySink[] = [];
  const jsonlPaths: string[] = [];
  const providers = providersWithSecrets(backends);
  const gateways: Gateway[] = [];
  const gateway = (options: Partial<GatewayOptions> = {}): Gateway => {
    const memory = new MemorySink();
    const path = join(directory, `calls-${gateways.length}.jsonl`);
    memories.push(memory);
    jsonlPaths.push(path);
    const made = createGateway({
      catalog,
      env: {},
      providers,
      retry: { initialDelayMs: 5, maxDelayMs: 50 },
      records: {
        sinks: [
          memory,
          new JsonlFileSink(path),
          new OpenTelemetrySink({ tracer: tracerProvider.getTracer('switchyard') }),
        ],
        flushIntervalMs: 20,
      },
      ...options,
    });
    gateways.push(made);
    return made;
  };
  const file = (error: unknown) => {
    const failure = error as Error & { attempts?: unknown };
    channels['error.message']!.push(failure.message);
    channels['JSON.stringify(error)']!.push(JSON.stringify(failure));
    channels['error.attempts']!.push(JSON.stringify(failure.attempts ?? null));
    for (let cause: unknown = failure.cause; cause !== undefined; cause = (cause as { cause?: unknown })?.cause)
      channels['String(error.cause)']!.push(String(cause));
    channels['util.inspect(error) (what console.error(error) prints)']!.push(inspect(failure, { depth: 8 }));
  };
  /** An answer (text, or a stream read to its end), or the error: everything observable is filed. */
  const observe = async (name: string, work: () => Promise<unknown>, status?: number) => {
    scenarios.push(name);
    let answered = 200;
    try {
      const result = await bounded(work(), 10_000, name);
      if (result && typeof result === 'object' && Symbol.asyncIterator in result) {
        const chunks: CompletionChunk[] = [];
        try {
          for await (const chunk of result as AsyncIterable<CompletionChunk>) chunks.push(chunk);
        } catch (error) {
          file(error);
        }
        channels['responses and stream chunks']!.push(
          JSON.stringify(chunks),
          JSON.stringify((result as { switchyard?: unknown }).switchyard),
        );
      } else channels['responses and stream chunks']!.push(JSON.stringify(result));
    } catch (error) {
      if (error instanceof Error && /did not settle within/.test(error.message)) throw error;
      answered = (error as { status?: number }).status ?? 0;
      file(error);
    }
    if (status !== undefined) expect(answered, name).toBe(status);
  };

  await captureOutput(channels['console, stdout, stderr, process warnings']!, async () => {
    // Proves the capture works: this line must be found in the channel (and holds no key).
    console.warn(CAPTURE_MARKER);
    const made = { main: gateway(), partial: gateway({ providers: withoutGoogle(providers) }) };
    for (const scenario of table) {
      scenario.arm?.(backends);
      await observe(
        scenario.name,
        () => made[scenario.gateway].createCompletion(scenario.request as never),
        scenario.status,
      );
    }
    // A key from the environment rather than from options.
    const fromEnv = gateway({
      providers: {},
      env: { OPENAI_API_KEY: LIBRARY_KEYS.openaiFromEnv, OPENAI_BASE_URL: `${backends.front.openai.url}/v1` },
    });
    const message = `Incorrect API key provided: ${LIBRARY_KEYS.openaiFromEnv}.`;
    backends.front.openai.enqueue({
      kind: 'status',
      status: 401,
      body: errorBody('openai', 401, message, { code: 'invalid_api_key' }),
    });
    await observe('openai key from the environment, 401 echoing it', () =>
      fromEnv.createCompletion({ model: MODELS.openai, messages: [{ role: 'user', content: 'Say hello' }] }),
    );
    // A deployment store that echoes the Authorization header it rejected.
    const store = gateway({
      deployments: deploymentServer.url,
      env: { SWITCHYARD_API_KEY: LIBRARY_KEYS.deploymentStore },
    });
    await observe('deployment store 401 echoing its key', () =>
      store.createCompletion({ model: 'switchyard/deployment/support:production#1', input: {} }),
    );
    await observe('deployment store listing, 401 echoing its key', () => store.listDeployments());
    for (const made of gateways) await made.close();
  });

  await tracerProvider.forceFlush();
  for (const memory of memories)
    for (const record of memory.records()) channels['records (MemorySink)']!.push(JSON.stringify(record));
  for (const path of jsonlPaths) {
    const text = await readFile(path, 'utf8').catch(() => '');
    channels['JSONL file']!.push(...text.split('\n').filter(Boolean));
  }
  for (const span of exporter.getFinishedSpans()) {
    const { name, attributes, status, events } = span;
    channels['OpenTelemetry spans']!.push(
      JSON.stringify({ name, attributes, status, events, resource: span.resource.attributes }),
    );
  }
  return {
    channels,
    scenarios,
    deploymentServer,
    close: async () => {
      await Promise.all([deploymentServer.close(), rm(directory, { recursive: true, force: true })]);
    },
  };
}

export function withoutGoogle<T extends { google?: unknown }>(providers: T): Omit<T, 'google'> {
  const { google: _google, ...rest } = providers;
  return rest;
}
