import { requireEveryAgent } from '../access/agents.ts';
import { requireEveryTenant } from '../access/reads.ts';
import { defaultCatalog } from '../catalog/default-catalog.ts';
import { listEmbeddingModels } from '../embeddings/embedding-catalog.ts';
import type { CallRecord } from '../records/call-record.ts';
import type { RecordQueueStats } from '../records/record-queue.ts';
import type { RecordSink } from '../records/sink.ts';
import type { Reply } from './exchange.ts';
import { BoundedValues, OTHER, SeriesCap } from './metric-labels.ts';
import type { Route } from './router.ts';

/** Seconds: from a cached answer (a few ms) to a long generation (minutes). */
const SECONDS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/**
 * Label sets one call metric keeps; later ones count under `other`. A histogram's each take 15 lines: at most
 * ~10,000 lines (~1 MB, a scrape of well under 100 ms) in all, whatever callers send.
 */
export const MAX_COUNTER_SERIES = 1_000;
export const MAX_HISTOGRAM_SERIES = 250;
/** Distinct agents, providers and attempt outcomes labelled; later ones are `other`. */
export const MAX_LABEL_VALUES = 64;
/** Distinct catalog models labelled (a refreshed catalog may hold thousands); later ones are `other`. */
const MAX_MODELS = 256;

/**
 * `GET /metrics` (`serve --metrics`): Prometheus text from prom-client, on a registry of this server's own (several
 * servers in one process never share counters). The handler reports each request's route and status; a record sink
 * reports each call's latency, first token, tokens, cost and attempts; the record queue's counters are read at scrape.
 */
export interface ServerMetrics {
  /** A sink beside the server's own: each record it is given is counted (never stored). */
  sink: RecordSink;
  routes: Route[];
  /** One answered request: its route (`null` when none matched) and HTTP status. */
  observe(route: Route | null, status: number): void;
  /** One tool call through the MCP gateway: its server (declared by the operator), outcome and seconds. */
  observeMcpCall(server: string, outcome: string, seconds: number): void;
}

/**
 * `catalogId`: the catalog id a model name stands for (an alias or synonym too), `undefined` when the catalog does
 * not know it; the bundled catalog unless given (`serve` gives its gateway's).
 */
export async function createServerMetrics(
  recordStats: () => RecordQueueStats,
  catalogId: (name: string) => string | undefined = (name) => defaultCatalog().find(name)?.id,
): Promise<ServerMetrics> {
  const client = await import('prom-client');
  const registry = new client.Registry();
  const registers = [registry];
  const requests = new client.Counter({
    name: 'switchyard_requests_total',
    help: 'HTTP requests answered, by route, status and dialect.',
    labelNames: ['route', 'status', 'dialect'] as const,
    registers,
  });
  const refusals = new client.Counter({
    name: 'switchyard_refusals_total',
    help: 'Requests refused by a limit (429: rate, concurrency or tokens per minute) or a budget (402).',
    labelNames: ['status'] as const,
    registers,
  });
  const latency = new client.Histogram({
    name: 'switchyard_call_latency_seconds',
    help: 'Whole-call latency, by provider and model.',
    labelNames: ['provider', 'model'] as const,
    buckets: SECONDS,
    registers,
  });
  const firstToken = new client.Histogram({
    name: 'switchyard_time_to_first_token_seconds',
    help: 'Time to the first token of streamed calls, by provider and model.',
    labelNames: ['provider', 'model'] as const,
    buckets: SECONDS,
    registers,
  });
  const tokens = new client.Counter({
    name: 'switchyard_tokens_total',
    help: 'Tokens billed, by provider, model, agent and type (prompt, completion).',
    labelNames: ['provider', 'model', 'agent', 'type'] as const,
    registers,
  });
  const cost = new client.Counter({
    name: 'switchyard_cost_usd_total',
    help: 'Cost in US dollars, by provider, model and agent.',
    labelNames: ['provider', 'model', 'agent'] as const,
    registers,
  });
  const calls = new client.Counter({
    name: 'switchyard_calls_total',
    help: 'Calls recorded, by status.',
    labelNames: ['status'] as const,
    registers,
  });
  const attempts = new client.Counter({
    name: 'switchyard_attempts_total',
    help: 'Provider attempts, by provider and outcome (ok, rate_limited, server_error, timeout…).',
    labelNames: ['provider', 'outcome'] as const,
    registers,
  });
  const mcpCalls = new client.Counter({
    name: 'switchyard_mcp_tool_calls_total',
    help: 'Tool calls through the MCP gateway, by upstream server and outcome (ok, tool_error, timeout, forbidden…).',
    labelNames: ['server', 'outcome'] as const,
    registers,
  });
  const mcpLatency = new client.Histogram({
    name: 'switchyard_mcp_tool_call_seconds',
    help: 'Tool calls through the MCP gateway: time to the upstream answer, by server.',
    labelNames: ['server'] as const,
    buckets: SECONDS,
    registers,
  });
  new client.Gauge({
    name: 'switchyard_record_queue_depth',
    help: 'Call records waiting to be written.',
    registers,
    collect() {
      this.set(recordStats().queued);
    },
  });
  const recordCounter = (name: string, help: string, read: (stats: RecordQueueStats) => number) =>
    new client.Counter({
      name,
      help,
      registers,
      collect() {
        this.reset();
        this.inc(read(recordStats()));
      },
    });
  recordCounter('switchyard_records_written_total', 'Call records written.', (stats) => stats.written);
  recordCounter('switchyard_records_dropped_total', 'Call records dropped (the queue was full).', (s) => s.dropped);
  recordCounter('switchyard_records_failed_total', 'Call records a sink could not store.', (stats) => stats.failed);
  recordCounter(
    'switchyard_record_journal_writes_total',
    'Writes to the record journal: one a batch of records (group commit), or a record written alone.',
    (stats) => stats.journal_writes,
  );

  const label = callLabels(catalogId);
  const mcpServers = new BoundedValues(MAX_LABEL_VALUES);
  const mcpOutcomes = new BoundedValues(MAX_LABEL_VALUES);
  const caps = {
    latency: new SeriesCap<'provider' | 'model'>(MAX_HISTOGRAM_SERIES),
    firstToken: new SeriesCap<'provider' | 'model'>(MAX_HISTOGRAM_SERIES),
    tokens: new SeriesCap<'provider' | 'model' | 'agent' | 'type'>(MAX_COUNTER_SERIES, ['type']),
    cost: new SeriesCap<'provider' | 'model' | 'agent'>(MAX_COUNTER_SERIES),
    attempts: new SeriesCap<'provider' | 'outcome'>(MAX_COUNTER_SERIES),
  };
  const count = (record: CallRecord) => {
    const { provider, model, agent } = label(record);
    calls.inc({ status: record.status });
    for (const attempt of record.attempts)
      attempts.inc(caps.attempts.of({ provider: label.provider(attempt.provider), outcome: label.outcome(attempt) }));
    latency.observe(caps.latency.of({ provider, model }), record.latency_ms / 1000);
    if (record.time_to_first_token_ms !== null)
      firstToken.observe(caps.firstToken.of({ provider, model }), record.time_to_first_token_ms / 1000);
    tokens.inc(caps.tokens.of({ provider, model, agent, type: 'prompt' }), record.usage.prompt_tokens);
    tokens.inc(caps.tokens.of({ provider, model, agent, type: 'completion' }), record.usage.completion_tokens);
    if (record.cost_usd !== null) cost.inc(caps.cost.of({ provider, model, agent }), record.cost_usd);
  };
  return {
    sink: { write: (batch) => batch.forEach(count) },
    routes: [
      {
        method: 'GET',
        path: /^\/metrics$/,
        auth: 'key',
        scope: 'metrics:read',
        handle: async ({ key }): Promise<Reply> => {
          // Series span every agent and tenant (none has a label to cut by): a key for some of them reads none.
          requireEveryAgent(key?.allowed_agents, 'the metrics');
          if (key) requireEveryTenant(key, 'the metrics');
          return {
            status: 200,
            headers: { 'content-type': registry.contentType, 'cache-control': 'no-store' },
            body: await registry.metrics(),
          };
        },
      },
    ],
    observe(route, status) {
      const label = route ? routeLabel(route) : 'unmatched';
      requests.inc({ route: label, status: String(status), dialect: dialectOf(label) });
      if (status === 429 || status === 402) refusals.inc({ status: String(status) });
    },
    observeMcpCall(server, outcome, seconds) {
      // The servers are the configuration's and the outcomes a fixed set: bounded all the same.
      mcpCalls.inc({ server: mcpServers.of(server), outcome: mcpOutcomes.of(outcome) });
      if (outcome !== 'forbidden') mcpLatency.observe({ server: mcpServers.of(server) }, seconds);
    },
  };
}

/**
 * A call's labels, never as a caller wrote them: its model only when the catalog knows it (a made-up name, refused
 * or served by a provider, is `other`), and its agent, provider and attempts' outcomes among the first seen.
 */
function callLabels(catalogId: (name: string) => string | undefined) {
  const embeddings = new Set(listEmbeddingModels().map((model) => model.id));
  const models = new BoundedValues(MAX_MODELS);
  const agents = new BoundedValues(MAX_LABEL_VALUES);
  const providers = new BoundedValues(MAX_LABEL_VALUES);
  const outcomes = new BoundedValues(MAX_LABEL_VALUES);
  const modelOf = (name: string) => {
    const id = embeddings.has(name) ? name : catalogId(name);
    return id === undefined ? OTHER : models.of(id);
  };
  return Object.assign(
    (record: CallRecord) => ({
      provider: record.provider === null ? 'none' : providers.of(record.provider),
      model: modelOf(record.model ?? record.requested_model),
      agent: record.agent_id === null ? '' : agents.of(record.agent_id),
    }),
    {
      provider: (name: string) => providers.of(name),
      outcome: (attempt: { outcome: string }) => outcomes.of(attempt.outcome),
    },
  );
}

/** Each route's label, made on its first request: routes are fixed, and three regex passes per request are not. */
const routeLabels = new WeakMap<Route, string>();

/** `GET /v1/deployments/{param}`: the route's pattern, readable and of bounded cardinality (never a request's ids). */
function routeLabel(route: Route): string {
  let label = routeLabels.get(route);
  if (label === undefined) routeLabels.set(route, (label = labelOf(route)));
  return label;
}

function labelOf(route: Route): string {
  const path = route.path.source
    .replace(/^\^|\$$/g, '')
    .replace(/\((?:[^()]|\([^()]*\))*\)\??/g, '{param}')
    .replace(/\\(.)/g, '$1');
  return `${route.method} ${path}`;
}

function dialectOf(label: string): string {
  if (label.includes('/v1/chat/completions')) return 'chat';
  if (label.includes('/v1/messages')) return 'messages';
  if (label.includes('/v1/responses')) return 'responses';
  if (label.includes('/v1/embeddings')) return 'embeddings';
  if (label.includes('/v1/images/')) return 'images';
  if (label.includes('/v1/audio/speech')) return 'speech';
  if (label.includes('/v1/audio/transcriptions')) return 'transcriptions';
  return 'none';
}
