import type { Attempt, ChatCompletionMessageParam, CompletionWarning, CostBreakdown, MediaUnits } from '../types.ts';

/**
 * The metadata keys that attribute a call, by what each names (`agent` → `agent_id`). This is their one definition:
 * each is a field of the call record and a column of the calls table, and the record's builder, the store's filters,
 * the call query, `serve`'s `x-switchyard-*` headers, the OpenTelemetry attributes and the budget scopes read them
 * from here. A request's other metadata keys stay in the record's `metadata`.
 */
export const ATTRIBUTION = { agent: 'agent_id', trace: 'trace_id', workflow: 'workflow_name' } as const;
export type AttributionField = (typeof ATTRIBUTION)[keyof typeof ATTRIBUTION];
/** The attribution fields, in the record's order. */
export const ATTRIBUTION_FIELDS: readonly AttributionField[] = Object.values(ATTRIBUTION);

/** Something per attribution field: the record's values, a query's filters, a schema's parts. */
export type ByAttribution<T> = { [Field in AttributionField]: T };
/** A call's attribution as its record holds it: `null` for a field its metadata did not give. */
export type CallAttribution = ByAttribution<string | null>;

/** An object with each attribution field (in the record's order) made by `make`. */
export function byAttribution<T>(make: (field: AttributionField) => T): ByAttribution<T> {
  return Object.fromEntries(ATTRIBUTION_FIELDS.map((field) => [field, make(field)])) as ByAttribution<T>;
}

/**
 * One record per `createCompletion` call, success or failure. Every field is always present (`null` when unknown)
 * so that the JSONL lines, the SQLite rows and the memory store all have one stable shape.
 */
export interface CallRecord extends CallAttribution {
  /** UUIDv7 made from `created_at`: sorting ids sorts calls by start time. */
  id: string;
  /** The API the call came through: chat completions, the Responses or Messages API, embeddings, media. */
  dialect: Dialect;
  /** When the call started (ISO 8601, UTC, millisecond precision). */
  created_at: string;
  // Here in the record's JSON: the attribution fields (`CallAttribution`).
  /** The request's other `metadata` keys. */
  metadata: Record<string, string>;
  deployment_id: string | null;
  /** `model` exactly as the caller wrote it (`claude-sonnet-4-5`, `groq/…`, `my-agent/gpt-4o`). */
  requested_model: string;
  /** Catalog id that served the call (`null` when the call failed before a model was resolved). */
  model: string | null;
  provider: string | null;
  provider_model: string | null;
  attempts: Attempt[];
  /** The messages as the caller wrote them (templates unrendered), or `"[redacted]"` contents. */
  input_messages: ChatCompletionMessageParam[] | null;
  /** The template variables (`request.input`), or `"[redacted]"`. */
  input: unknown;
  output: RecordOutput | null;
  usage: RecordUsage;
  /** USD, every completion the call paid for; `null` when a price was not known (and a `price_unknown` warning). */
  cost_usd: number | null;
  /** The same cost by part; `null` with it. */
  cost: CostBreakdown | null;
  /** From the start of the call to the last byte (streams: to the end of the stream). */
  latency_ms: number;
  /** Streams only: from the start of the call to the first chunk carrying text, reasoning or a tool call. */
  time_to_first_token_ms: number | null;
  stream: boolean;
  status: CallStatus;
  error: RecordError | null;
  warnings: CompletionWarning[];
  /** `hit`: answered from the response cache (nothing billed); `miss`: looked up and not found. Absent: not used. */
  cache?: 'hit' | 'miss';
  /** The sensitive-data mode applied and the counts of what it found, by kind; never a value. Absent: `off`. */
  sensitive_data?: SensitiveDataRecord;
  /** Media calls only: the modality and the units billed. */
  media?: MediaRecord;
}

/** What the sensitive-data guard did to a call: `{ mode: 'mask', found: { email: 2, card: 1 } }`. */
export interface SensitiveDataRecord {
  mode: 'off' | 'mask' | 'block';
  found: Partial<Record<string, number>>;
}

export type CallStatus = 'ok' | 'error';

/**
 * The APIs a call can come through, the one list: the record's `dialect`, the calls list's and the call query's
 * `dialect` filter read it.
 */
export const DIALECTS = ['chat', 'responses', 'messages', 'embeddings', 'images', 'speech', 'transcriptions'] as const;
export type Dialect = (typeof DIALECTS)[number];

/** What a media call (images, speech, transcription) was billed in: its modality and the units counted. */
export type MediaRecord = MediaUnits;

/** The first choice's answer. */
export interface RecordOutput {
  content: string | null;
  reasoning_content: string | null;
  tool_calls: RecordToolCall[];
  refusal: string | null;
  finish_reason: string | null;
  /**
   * The images the model answered with (`message.images`), each as its type and size: never the bytes, which would
   * make one record megabytes. Absent when there were none.
   */
  images?: RecordImage[];
}

/** An answered image as the record keeps it: `image/png` and its decoded size (`null` for a URL that is not data). */
export interface RecordImage {
  media_type: string | null;
  bytes: number | null;
}

export interface RecordToolCall {
  id: string;
  type: string;
  function: { name: string; arguments: string };
}

/**
 * Tokens billed for the call, summed over every completion it took (a structured-output correction is a second
 * completion). `reasoning_tokens` are part of `completion_tokens`; `cached_tokens` are part of `prompt_tokens`.
 */
export interface RecordUsage {
  prompt_tokens: number;
  completion_tokens: number;
  reasoning_tokens: number;
  /** Prompt tokens read from a cache. */
  cached_tokens: number;
  /** Prompt tokens written to a cache (billed at the write price). */
  cache_write_tokens: number;
  /** Of those, the ones written with a one-hour time to live. */
  cache_write_1h_tokens: number;
}

export interface RecordError {
  type: string;
  code: string | null;
  status: number | null;
  message: string;
}

export const REDACTED = '[redacted]';

/** A copy of the record without message contents, tool-call arguments, template input or answer text. */
export function redactRecord(record: CallRecord): CallRecord {
  return {
    ...record,
    input_messages: record.input_messages?.map(redactMessage) ?? null,
    input: record.input === null ? null : REDACTED,
    output: record.output && {
      ...record.output,
      content: redactText(record.output.content),
      reasoning_content: redactText(record.output.reasoning_content),
      refusal: redactText(record.output.refusal),
      tool_calls: record.output.tool_calls.map((call) => ({
        ...call,
        function: { ...call.function, arguments: REDACTED },
      })),
    },
  };
}

function redactText(text: string | null): string | null {
  return text === null ? null : REDACTED;
}

function redactMessage(message: ChatCompletionMessageParam): ChatCompletionMessageParam {
  const copy = { ...message } as Record<string, unknown>;
  if (copy.content !== null && copy.content !== undefined) copy.content = REDACTED;
  if (Array.isArray(copy.tool_calls)) {
    copy.tool_calls = copy.tool_calls.map((call: Record<string, unknown>) => redactToolCall(call));
  }
  if (copy.function_call && typeof copy.function_call === 'object') {
    copy.function_call = { ...copy.function_call, arguments: REDACTED };
  }
  return copy as unknown as ChatCompletionMessageParam;
}

function redactToolCall(call: Record<string, unknown>): Record<string, unknown> {
  const copy = { ...call };
  if (copy.function && typeof copy.function === 'object') copy.function = { ...copy.function, arguments: REDACTED };
  if (copy.custom && typeof copy.custom === 'object') copy.custom = { ...copy.custom, input: REDACTED };
  return copy;
}
