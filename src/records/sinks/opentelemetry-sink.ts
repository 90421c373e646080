import { importByName } from '../../internal/import-by-name.ts';
import type { ProviderDefinition } from '../../providers/provider.ts';
import { builtInRegistry } from '../../providers/registry.ts';
import { ATTRIBUTION_FIELDS, type CallRecord } from '../call-record.ts';
import type { RecordSink } from '../sink.ts';

/**
 * The few parts of `@opentelemetry/api` this sink uses, typed here so that the package stays an optional peer:
 * a `Tracer` from it fits `OtelTracer`.
 */
export type OtelAttributeValue = string | number | boolean | string[];

interface OtelSpan {
  setStatus(status: { code: number; message?: string }): unknown;
  end(endTime?: Date): void;
}

export interface OtelTracer {
  startSpan(
    name: string,
    options?: { kind?: number; startTime?: Date; root?: boolean; attributes?: Record<string, OtelAttributeValue> },
  ): OtelSpan;
}

export interface OpenTelemetrySinkOptions {
  /** The tracer to record with; default `trace.getTracer(tracerName)` from `@opentelemetry/api`. */
  tracer?: OtelTracer | undefined;
  /** Default `switchyard`. */
  tracerName?: string | undefined;
  /** Providers of your own, for the `gen_ai.provider.name` their definitions give (`otelName`). */
  providers?: readonly Pick<ProviderDefinition, 'id' | 'otelName'>[] | undefined;
}

const SPAN_KIND_CLIENT = 2;
const STATUS_ERROR = 2;
const OTEL_API = '@opentelemetry/api';

/** A provider's `gen_ai.provider.name`: its definition's `otelName`, else its id. */
type ProviderNames = (provider: string) => string;

function providerNames(own: OpenTelemetrySinkOptions['providers'] = []): ProviderNames {
  const names = new Map<string, string>();
  for (const definition of [...builtInRegistry.definitions, ...own])
    names.set(definition.id, definition.otelName ?? definition.id);
  return (provider) => names.get(provider) ?? provider;
}

/**
 * One `chat` span per call, following the OpenTelemetry GenAI semantic conventions. Spans never carry message
 * contents, template input, answers, metadata values or error messages (those can quote the prompt): only
 * names, counts, cost and timing. They are root spans: records are written after the call, outside its context.
 */
export class OpenTelemetrySink implements RecordSink {
  readonly #givenTracer: OtelTracer | undefined;
  readonly #tracerName: string;
  readonly #providerName: ProviderNames;
  #loadedTracer: Promise<OtelTracer> | undefined;

  /** Never throws: without a `tracer`, `@opentelemetry/api` is loaded on the first write (see `create`). */
  constructor(options: OpenTelemetrySinkOptions = {}) {
    this.#givenTracer = options.tracer;
    this.#tracerName = options.tracerName ?? 'switchyard';
    this.#providerName = providerNames(options.providers);
  }

  /** A sink whose tracer is loaded now: rejects at once when `@opentelemetry/api` is not installed. */
  static async create(options: OpenTelemetrySinkOptions = {}): Promise<OpenTelemetrySink> {
    const tracer = options.tracer ?? (await loadOpenTelemetryTracer(options.tracerName ?? 'switchyard'));
    return new OpenTelemetrySink({ ...options, tracer });
  }

  async write(records: CallRecord[]): Promise<void> {
    const tracer = this.#givenTracer ?? (await (this.#loadedTracer ??= loadOpenTelemetryTracer(this.#tracerName)));
    for (const record of records) {
      const start = Date.parse(record.created_at);
      const span = tracer.startSpan(`chat ${record.requested_model}`, {
        kind: SPAN_KIND_CLIENT,
        startTime: new Date(start),
        root: true,
        attributes: spanAttributes(record, this.#providerName),
      });
      if (record.status === 'error')
        span.setStatus({ code: STATUS_ERROR, message: record.error?.code ?? record.error?.type ?? 'error' });
      span.end(new Date(start + record.latency_ms));
    }
  }
}

/** The span attributes of a record: no contents, by construction (only the fields listed here). */
function spanAttributes(
  record: CallRecord,
  providerName: ProviderNames = providerNames(),
): Record<string, OtelAttributeValue> {
  const attributes: Record<string, OtelAttributeValue> = {
    'gen_ai.operation.name': 'chat',
    'gen_ai.request.model': record.requested_model,
    'gen_ai.usage.input_tokens': record.usage.prompt_tokens,
    'gen_ai.usage.output_tokens': record.usage.completion_tokens,
    'switchyard.call_id': record.id,
    ...(record.cost_usd === null ? {} : { 'switchyard.cost_usd': record.cost_usd }),
    'switchyard.stream': record.stream,
    'switchyard.attempts': record.attempts.length,
  };
  const optional: Record<string, string | number | null | undefined> = {
    'gen_ai.system': record.provider,
    'gen_ai.provider.name': record.provider && providerName(record.provider),
    'gen_ai.response.model': record.model,
    'switchyard.provider_model': record.provider_model,
    ...Object.fromEntries(ATTRIBUTION_FIELDS.map((field) => [`switchyard.${field}`, record[field]])),
    'switchyard.deployment_id': record.deployment_id,
    'switchyard.time_to_first_token_ms': record.time_to_first_token_ms,
    'error.type': record.error && (record.error.code ?? record.error.type),
  };
  for (const [key, value] of Object.entries(optional))
    if (value !== null && value !== undefined) attributes[key] = value;
  if (record.output?.finish_reason) attributes['gen_ai.response.finish_reasons'] = [record.output.finish_reason];
  return attributes;
}

/** `trace.getTracer(name)` from `@opentelemetry/api`, or an error that says how to install it. */
export async function loadOpenTelemetryTracer(
  tracerName: string,
  importModule: (specifier: string) => Promise<unknown> = importByName,
): Promise<OtelTracer> {
  type Api = { trace?: { getTracer?: (name: string) => OtelTracer } };
  let api: Api;
  try {
    const loaded = (await importModule(OTEL_API)) as Api & { default?: Api };
    // A CommonJS build imported from ESM may expose its exports only on `default`.
    api = loaded.trace ? loaded : (loaded.default ?? loaded);
  } catch (cause) {
    throw new Error(
      `OpenTelemetrySink needs the optional peer dependency ${OTEL_API}, which is not installed: npm install ` +
        `${OTEL_API}`,
      { cause },
    );
  }
  if (typeof api.trace?.getTracer !== 'function')
    throw new Error(`${OTEL_API} was found but has no trace.getTracer: is it version 1.x?`);
  return api.trace.getTracer(tracerName);
}
