import { isoTime } from '../internal/iso-time.ts';
import { jsonCopy } from '../internal/json-copy.ts';
import { redactSecrets } from '../internal/redact.ts';
import type {
  Attempt,
  ChatCompletionMessageParam,
  CompletionChoice,
  CompletionWarning,
  SwitchyardResponseInfo,
} from '../types.ts';
import {
  ATTRIBUTION_FIELDS,
  byAttribution,
  type CallRecord,
  type Dialect,
  type MediaRecord,
  type RecordError,
  redactRecord,
  type SensitiveDataRecord,
} from './call-record.ts';
import {
  type BilledUsage,
  normalizeUsage,
  sumOf,
  sumUsage,
  type TokenPricing,
  totalCostBreakdown,
  type UsageLike,
} from './compute-cost.ts';
import { EXCERPT, excerptOf } from './record-excerpt.ts';
import { capOutput, isObject, kindOf, outputFromChoices } from './record-output.ts';
import { capStrings, capText, DEFAULT_MAX_TEXT_LENGTH, MAX_RECORD_DEPTH, wellFormed } from './record-text.ts';
import type { StreamSummary } from './stream-recorder.ts';
import { uuidv7 } from './uuidv7.ts';

/** Metadata keys that get their own record field: the attribution; the others stay in `metadata`. */
const PROMOTED_METADATA: ReadonlySet<string> = new Set(ATTRIBUTION_FIELDS);
/** Outcomes of an attempt whose candidate was never sent the request (see run-attempts.ts). */
const NOT_SENT = new Set(['not_allowed', 'context_too_long', 'missing_credentials']);

/** Everything the gateway knows about one finished call (succeeded, failed, or a stream that ended). */
export interface CallRecordInput {
  /** The call id already handed to the caller (`switchyard.call_id`); default a new UUIDv7 from `startedAt`. */
  id?: string;
  /** The API the call came through (default `chat`). */
  dialect?: Dialect;
  /** The request as the caller wrote it. */
  request: {
    model: string;
    messages?: ChatCompletionMessageParam[] | undefined;
    input?: unknown;
    /** Validated requests carry string values; a request that failed validation may carry anything. */
    metadata?: unknown;
    stream?: boolean | null | undefined;
  };
  /** Epoch milliseconds when `createCompletion` was entered. */
  startedAt: number;
  /** Epoch milliseconds when the answer (or the stream, or the error) was complete; default now. */
  endedAt?: number;
  /** The routing facts of the response or stream; absent when the call failed. */
  info?: SwitchyardResponseInfo;
  /** The catalog id, when the call failed after the model was resolved. */
  model?: string;
  /** The agent the gateway attributed the call to (deployment, `metadata.agent_id`, or the model prefix). */
  agentId?: string;
  deploymentId?: string;
  /** A non-streamed answer. */
  response?: { choices: CompletionChoice[]; usage?: UsageLike | null | undefined };
  /** A stream's answer, from `StreamRecorder.summary()`. */
  stream?: StreamSummary;
  /** Every completion the call paid for, with its offering's price. Default: the answer's usage at `pricing`. */
  billed?: BilledUsage[];
  /** Price of the offering that answered, used when `billed` is not given. */
  pricing?: TokenPricing;
  error?: unknown;
  /** The sensitive-data guard's mode and counts (never values). */
  sensitiveData?: SensitiveDataRecord | undefined;
  /** A media call's modality and billed units. */
  media?: MediaRecord | undefined;
  /** Replace message contents, input and answer text by `"[redacted]"`. */
  redact?: boolean;
  /** Longest text kept per field (characters); longer text is cut, with a marker saying how much (default 1e6). */
  maxTextLength?: number;
}

/** The call record for one call. Copies what it keeps: callers often push onto their `messages` array afterwards. */
export function buildCallRecord(input: CallRecordInput): CallRecord {
  return buildRecord(input).record;
}

/**
 * The record, and whether a part of it could not be built. Each part is built on its own: a malformed provider
 * answer or an odd request costs that part (`null`, and named in a `record_incomplete` warning), never the record.
 */
export function buildRecord(input: CallRecordInput): { record: CallRecord; incomplete: boolean } {
  const { request, info } = input;
  const refused = wasRefused(input);
  const limit = Math.min(
    Math.max(1, input.maxTextLength ?? DEFAULT_MAX_TEXT_LENGTH),
    refused ? EXCERPT.text : Infinity,
  );
  const problems: string[] = [];
  let excerpted = false;
  const excerpt = (value: unknown) => excerptOf(value, () => (excerpted = true));
  const truncated: string[] = [];
  const tooDeep = new Set<string>();
  const part = <T>(name: string, fallback: T, build: () => T): T => {
    try {
      return build();
    } catch (error) {
      problems.push(`${name}: ${error instanceof Error ? error.message : String(error)}`);
      return fallback;
    }
  };
  const text = (value: string, field: string) => capText(wellFormed(value), limit, () => truncated.push(field));
  const textOrNull = (value: string | null | undefined, field: string) =>
    typeof value === 'string' ? text(value, field) : null;

  const endedAt = input.endedAt ?? Date.now();
  const dropped: string[] = [];
  const metadata = part('metadata', {}, () => stringMetadata(request.metadata, dropped));
  const otherMetadata: Record<string, string> = {};
  for (const [key, value] of Object.entries(metadata)) {
    if (PROMOTED_METADATA.has(key)) continue;
    if (refused && Object.keys(otherMetadata).length === EXCERPT.items) {
      excerpted = true;
      break;
    }
    otherMetadata[key] = text(value, `metadata.${key}`);
  }

  const answerUsage = input.response?.usage ?? input.stream?.usage ?? null;
  const billed = input.billed ?? [{ usage: answerUsage, pricing: input.pricing }];
  const error = input.error === undefined ? null : recordErrorFrom(input.error);
  if (error && refused) error.message = text(error.message, 'error.message');
  const firstTokenAt = input.stream?.firstTokenAt ?? null;
  const cost = part('cost', null, () => totalCostBreakdown(billed));
  const warnings: CompletionWarning[] = part('warnings', [], () =>
    (info?.warnings ?? []).map((warning) => ({ ...warning })),
  );

  // The agent is the one the gateway attributed the call to (a deployment's, or the model prefix) when it did.
  const attributedBy: Record<string, string | undefined> = {
    ...metadata,
    agent_id: input.agentId ?? info?.agent_id ?? metadata.agent_id,
  };
  const record: CallRecord = {
    id: input.id ?? uuidv7(input.startedAt),
    dialect: input.dialect ?? 'chat',
    created_at: isoTime(input.startedAt),
    ...byAttribution((field) => textOrNull(attributedBy[field], field)),
    metadata: otherMetadata,
    deployment_id: input.deploymentId ?? null,
    requested_model: text(request.model, 'requested_model'),
    model: info?.model ?? input.model ?? null,
    provider: info?.provider ?? null,
    provider_model: info?.provider_model ?? null,
    attempts: part('attempts', [], () =>
      (info?.attempts ?? attemptsOf(input.error)).map((attempt) =>
        attempt.message === undefined ? { ...attempt } : { ...attempt, message: redactSecrets(attempt.message, []) },
      ),
    ),
    input_messages: part('input_messages', null, () => {
      if (!request.messages) return null;
      return refused
        ? excerpt(request.messages)
        : capped(jsonClone(request.messages), limit, truncated, tooDeep, 'input_messages');
    }) as ChatCompletionMessageParam[] | null,
    input: part('input', null, () => {
      if (request.input === undefined) return null;
      return refused
        ? (excerpt(request.input) ?? null)
        : capped(jsonClone(request.input), limit, truncated, tooDeep, 'input');
    }),
    output: part('output', null, () => {
      const output = input.response ? outputFromChoices(input.response.choices) : (input.stream?.output ?? null);
      return output && capOutput(output, textOrNull);
    }),
    usage: part('usage', normalizeUsage(null), () =>
      input.billed ? sumUsage(billed.map((entry) => entry.usage)) : normalizeUsage(answerUsage),
    ),
    cost_usd: cost && sumOf(cost),
    cost,
    latency_ms: Math.max(0, endedAt - input.startedAt),
    time_to_first_token_ms: firstTokenAt === null ? null : Math.max(0, firstTokenAt - input.startedAt),
    stream: request.stream === true,
    status: error ? 'error' : 'ok',
    error,
    warnings,
    ...(info?.cache ? { cache: info.cache } : {}),
    ...(input.sensitiveData
      ? { sensitive_data: { mode: input.sensitiveData.mode, found: { ...input.sensitiveData.found } } }
      : {}),
    ...(input.media ? { media: input.media } : {}),
  };
  if (dropped.length > 0) {
    const message = `Not stored: metadata values that are not strings (${listed(dropped)}).`;
    warnings.push({ code: 'metadata_dropped', param: 'metadata', message });
  }
  if (refused && (excerpted || truncated.length > 0)) {
    const message =
      'No provider was sent this call: its record keeps an excerpt of the request (strings cut to ' +
      `${EXCERPT.text} characters, lists and objects to their first ${EXCERPT.items} items, about ` +
      `${EXCERPT.budget} characters a field).`;
    warnings.push({ code: 'record_truncated', message });
  } else if (truncated.length > 0 || tooDeep.size > 0) {
    const cut: string[] = [];
    if (truncated.length > 0) cut.push(`Stored cut to ${limit} characters, marked where cut: ${listed(truncated)}.`);
    if (tooDeep.size > 0) {
      cut.push(`Values nested deeper than ${MAX_RECORD_DEPTH} levels replaced by a marker: ${listed([...tooDeep])}.`);
    }
    warnings.push({ code: 'record_truncated', message: cut.join(' ') });
  }
  if (problems.length > 0) {
    const message = `Parts of this record could not be built and are missing: ${listed(problems)}.`;
    warnings.push({ code: 'record_incomplete', message });
  }
  return { record: input.redact ? redactRecord(record) : record, incomplete: problems.length > 0 };
}

/**
 * Whether the call failed before any provider was sent it: an invalid request, a model it may not use, a budget
 * spent, a prompt too long for every candidate. Its record keeps an excerpt of the request (record-excerpt.ts).
 */
function wasRefused(input: CallRecordInput): boolean {
  if (input.error === undefined || input.info || input.response || input.stream) return false;
  const attempts: unknown[] = attemptsOf(input.error);
  return attempts.every((attempt) => NOT_SENT.has((attempt as Attempt | null)?.outcome as string));
}

/** `{ type, code, status, message }` of anything thrown; credentials are scrubbed from the message. */
export function recordErrorFrom(error: unknown): RecordError {
  if (error instanceof Error) {
    // Duck-typed rather than `instanceof SwitchyardError`, so an error from a second copy of the package still maps.
    const fields = error as Error & { type?: unknown; code?: unknown; status?: unknown };
    return {
      type: typeof fields.type === 'string' ? fields.type : error.name,
      code: typeof fields.code === 'string' ? fields.code : null,
      status: typeof fields.status === 'number' ? fields.status : null,
      message: redactSecrets(error.message, []),
    };
  }
  return { type: 'unknown_error', code: null, status: null, message: redactSecrets(String(error), []) };
}

function attemptsOf(error: unknown): Attempt[] {
  const attempts = (error as { attempts?: unknown } | null | undefined)?.attempts;
  return Array.isArray(attempts) ? (attempts as Attempt[]) : [];
}

/**
 * The request's metadata as the record stores it: string values only. A request that failed validation is
 * recorded too, with whatever it sent; a number or an object there must not reach a string column.
 */
function stringMetadata(metadata: unknown, dropped: string[]): Record<string, string> {
  if (metadata === null || metadata === undefined) return {};
  if (!isObject(metadata)) {
    dropped.push(`metadata is ${kindOf(metadata)}`);
    return {};
  }
  const strings: Record<string, string> = {};
  for (const [key, value] of Object.entries(metadata)) {
    if (typeof value === 'string') strings[key] = value;
    else dropped.push(`${key}: ${kindOf(value)}`);
  }
  return strings;
}

function capped(value: unknown, limit: number, truncated: string[], tooDeep: Set<string>, root: string): unknown {
  return capStrings(value, limit, (path, deep) => (deep ? tooDeep.add(path) : truncated.push(path)), root);
}

/** The first ten items, then how many more: a warning stays short whatever the request held. */
function listed(items: string[]): string {
  const shown = items.slice(0, 10).map((item) => (item.length > 200 ? `${item.slice(0, 200)}…` : item));
  return items.length > 10 ? `${shown.join('; ')}; and ${items.length - 10} more` : shown.join('; ');
}

/**
 * A deep copy with JSON's rules: what every sink stores anyway, so a record reads the same from memory and from
 * disk, and a value JSON cannot hold (a BigInt, a cycle) cannot make a sink fail later.
 */
function jsonClone(value: unknown): unknown {
  try {
    return jsonCopy(value);
  } catch {
    return '[unserializable]';
  }
}
