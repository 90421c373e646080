import * as otelApi from '@opentelemetry/api';
import * as otelSdk from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import type { ProviderDefinition } from '../../src/entries/providers.ts';
import {
  type CallRecord,
  OpenTelemetrySink,
  type OtelAttributeValue,
  type OtelTracer,
  ZERO_USAGE,
} from '../../src/records/index.ts';
import { loadOpenTelemetryTracer } from '../../src/records/sinks/opentelemetry-sink.ts';
import { makeRecord } from './make-record.ts';

const SECRETS = [
  'secret question',
  'secret answer',
  'acme-secret-customer',
  'hidden reasoning',
  'sk-live-key-1234567890',
];

function sensitiveRecords(): CallRecord[] {
  const ok = makeRecord({
    createdAt: Date.UTC(2026, 2, 1, 10),
    latency_ms: 1234,
    provider: 'google',
    model: 'gemini-2.5-flash',
    requested_model: 'gemini-2.5-flash',
    metadata: { customer: 'acme-secret-customer' },
    deployment_id: 'dep-7',
    input: { key: 'sk-live-key-1234567890' },
    output: {
      content: 'secret answer',
      reasoning_content: 'hidden reasoning',
      tool_calls: [],
      refusal: null,
      finish_reason: 'stop',
    },
    usage: { ...ZERO_USAGE, prompt_tokens: 321, completion_tokens: 45, reasoning_tokens: 5 },
    cost_usd: 0.000123,
  });
  const failed = makeRecord({
    status: 'error',
    output: null,
    model: null,
    provider: null,
    provider_model: null,
    error: { type: 'api_error', code: 'server_error', status: 500, message: 'upstream echoed: secret question' },
  });
  return [ok, failed];
}

interface RecordedSpan {
  name: string;
  options: Parameters<OtelTracer['startSpan']>[1];
  status?: { code: number; message?: string };
  endTime?: Date | undefined;
}

function recordingTracer(spans: RecordedSpan[]): OtelTracer {
  return {
    startSpan(name, options) {
      const span: RecordedSpan = { name, options };
      spans.push(span);
      return {
        setStatus: (status) => (span.status = status),
        end: (endTime) => (span.endTime = endTime),
      };
    },
  };
}

describe('OpenTelemetrySink', () => {
  it('makes one GenAI chat span per call, timed from the record, with no contents', async () => {
    const spans: RecordedSpan[] = [];
    const [ok, failed] = sensitiveRecords();
    await new OpenTelemetrySink({ tracer: recordingTracer(spans) }).write([ok!, failed!]);
    expect(spans).toHaveLength(2);
    const [okSpan, failedSpan] = spans;
    expect(okSpan!.name).toBe('chat gemini-2.5-flash');
    expect(okSpan!.options).toMatchObject({ kind: 2, root: true, startTime: new Date(ok!.created_at) });
    expect(okSpan!.endTime).toEqual(new Date(Date.parse(ok!.created_at) + 1234));
    expect(okSpan!.status).toBeUndefined();
    expect(okSpan!.options!.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.system': 'google',
      'gen_ai.provider.name': 'gcp.gemini',
      'gen_ai.request.model': 'gemini-2.5-flash',
      'gen_ai.response.model': 'gemini-2.5-flash',
      'gen_ai.usage.input_tokens': 321,
      'gen_ai.usage.output_tokens': 45,
      'gen_ai.response.finish_reasons': ['stop'],
      'switchyard.agent_id': 'planner',
      'switchyard.trace_id': 'trace-1',
      'switchyard.workflow_name': 'research',
      'switchyard.cost_usd': 0.000123,
      'switchyard.deployment_id': 'dep-7',
    } satisfies Record<string, OtelAttributeValue>);
    expect(failedSpan!.status).toEqual({ code: 2, message: 'server_error' });
    expect(failedSpan!.options!.attributes).toMatchObject({ 'error.type': 'server_error' });
    expect(failedSpan!.options!.attributes).not.toHaveProperty('gen_ai.response.model');
    const everything = JSON.stringify(spans);
    for (const secret of SECRETS) expect(everything).not.toContain(secret);
  });

  it('names each provider as the GenAI semantic conventions do, as its definition says', async () => {
    const spans: RecordedSpan[] = [];
    const acme = { id: 'acme', otelName: 'acme.cloud' } as ProviderDefinition;
    const providers = [
      'bedrock',
      'vertex',
      'google',
      'azure',
      'xai',
      'mistral',
      'openai',
      'anthropic',
      'ollama',
      'acme',
    ];
    const records = providers.map((provider) => makeRecord({ provider }));
    await new OpenTelemetrySink({ tracer: recordingTracer(spans), providers: [acme] }).write(records);
    expect(spans.map((span) => span.options!.attributes!['gen_ai.provider.name'])).toEqual([
      'aws.bedrock',
      'gcp.vertex_ai',
      'gcp.gemini',
      'azure.ai.openai',
      'x_ai',
      'mistral_ai',
      'openai',
      'anthropic',
      'ollama',
      'acme.cloud',
    ]);
  });

  it('says how to install @opentelemetry/api when it is missing', async () => {
    const missing = () => Promise.reject(new Error("Cannot find package '@opentelemetry/api'"));
    await expect(loadOpenTelemetryTracer('switchyard', missing)).rejects.toThrow(
      'OpenTelemetrySink needs the optional peer dependency @opentelemetry/api, which is not installed: npm install ' +
        '@opentelemetry/api',
    );
  });

  it('loads the tracer from @opentelemetry/api', async () => {
    const sink = await OpenTelemetrySink.create();
    // No SDK registered: the API's no-op tracer takes the spans without complaint.
    await expect(sink.write(sensitiveRecords())).resolves.toBeUndefined();
  });

  it('exports spans through the SDK with the GenAI attributes', async () => {
    const exporter = new otelSdk.InMemorySpanExporter();
    const processor = new otelSdk.SimpleSpanProcessor(exporter);
    const provider = new otelSdk.BasicTracerProvider({ spanProcessors: [processor] });
    const [ok, failed] = sensitiveRecords();
    await new OpenTelemetrySink({ tracer: provider.getTracer('switchyard') }).write([ok!, failed!]);
    await provider.forceFlush();
    const spans = exporter.getFinishedSpans() as Array<Record<string, any>>;
    expect(spans).toHaveLength(2);
    expect(spans[0]!.name).toBe('chat gemini-2.5-flash');
    expect(spans[0]!.kind).toBe(otelApi.SpanKind.CLIENT);
    expect(spans[0]!.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.usage.input_tokens': 321,
      'switchyard.cost_usd': 0.000123,
      'switchyard.agent_id': 'planner',
    });
    const [seconds, nanos] = spans[0]!.startTime as [number, number];
    expect(seconds * 1000 + nanos / 1e6).toBeCloseTo(Date.parse(ok!.created_at), 3);
    expect(spans[1]!.status.code).toBe(otelApi.SpanStatusCode.ERROR);
    const everything = JSON.stringify(
      spans.map((span) => ({ name: span.name, attributes: span.attributes, status: span.status, events: span.events })),
    );
    for (const secret of SECRETS) expect(everything).not.toContain(secret);
  });
});
