import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { CallAccess } from '../access/call-access.ts';
import type { ModelEntry, ProviderOffering } from '../catalog/catalog-schema.ts';
import { UnsupportedParameterError } from '../errors.ts';
import type { GuardrailContext } from '../guardrails/guardrail.ts';
import type { SensitiveDataDecision, SensitiveDataMode } from '../guardrails/mode.ts';
import type { ResolvedReasoning, ThinkingDisplay } from '../providers/provider.ts';
import type { Dialect } from '../records/call-record.ts';
import type { BilledUsage } from '../records/compute-cost.ts';
import { uuidv7 } from '../records/uuidv7.ts';
import type { OutputSpec } from '../structured-output/output-spec.ts';
import type { SchemaValidatorSetting } from '../structured-output/schema-engine.ts';
import type { Attempt, CompletionRequest, CompletionWarning, FallbackReason } from '../types.ts';
import type { AttemptPolicy } from './attempt-policy.ts';
import type { StreamTimeouts } from './open-stream.ts';
import type { Routing } from './route-offerings.ts';

/**
 * What one call sends, decided once by `resolveRequest` and read by every later stage: the model, the
 * provider-neutral body, and the settings that shape the attempts. Nothing changes it after it is made.
 */
export interface CallPlan extends AttemptPolicy {
  /** The request as the caller effectively made it: a deployment's stored request merged with the caller's. */
  readonly request: CompletionRequest;
  readonly model: ModelEntry;
  /** `false` for a model the catalog does not list (`<provider>/<any id>`). */
  readonly modelKnown: boolean;
  /** The model's offerings to try, in order: all of them, or the one a `<provider>/<model>` reference names. */
  readonly offerings: readonly ProviderOffering[];
  readonly agentId: string | undefined;
  readonly deploymentId: string | undefined;
  readonly metadata: Record<string, string> | undefined;
  /**
   * The OpenAI body every provider starts from: the caller's parameters that providers receive, the messages
   * rendered with `input`, as the caller asked: each candidate's shaping drops what its model cannot take. Without
   * `model` (each candidate names its own).
   */
  readonly body: Readonly<Record<string, unknown>> & { messages: ChatCompletionMessageParam[] };
  readonly output: OutputSpec | undefined;
  /** Which engine checks the answer and the tool calls' arguments (the gateway's `schemaValidator`). */
  readonly schemaValidator: SchemaValidatorSetting;
  /** The caller's reasoning on the requested model (validated there); each other candidate resolves its own. */
  readonly reasoning: ResolvedReasoning | undefined;
  /** `auto`: the provider places prompt-cache breakpoints itself (the request's `prompt_cache`, else the gateway's). */
  readonly promptCache: 'auto' | false;
  readonly stream: boolean;
  readonly includeUsage: boolean;
  /** Models tried after every provider of `model` failed. */
  readonly fallbacks: readonly string[];
  /** How each model's offerings are ordered: the request's `routing`, else the gateway's, else `order`. */
  readonly routing: Routing;
  /** What else moves the call to the next candidate (`content_filter`); none unless the caller asks. */
  readonly fallbackOn: readonly FallbackReason[];
  /** When to send the next candidate beside a first (this offering) that has produced nothing; `undefined`: never. */
  readonly hedgeAfterMs: (offering: { provider: string; model: string }) => number | undefined;
  /** A stream broken after content reached the caller goes on at the next candidate (`stream_failover`). */
  readonly streamFailover: boolean;
  /** The call's own stream limits; a provider's, else the gateway's, where unset (`streamTimeoutsOf`). */
  readonly streamTimeouts: Partial<StreamTimeouts>;
  /** The caller's limits, applied by the stages (agents, models, key budgets); `undefined`: none. */
  readonly access: CallAccess | undefined;
  /** The Messages API's `thinking.display`, for Claude; a dialect sets it (`EdgeTranslation`). */
  readonly thinkingDisplay?: ThinkingDisplay | undefined;
}

/**
 * What happened during one call, gathered as the stages run and read when the call is recorded: every attempt,
 * every warning (each once), and every completion paid for.
 */
export class CallTrace {
  /** The call's id (UUIDv7), given to the caller as `switchyard.call_id` and to its record. */
  readonly id = uuidv7();
  /** Epoch milliseconds, for the record. */
  readonly startedAt = Date.now();
  /** `performance.now()` at the start, for the deadline. */
  readonly startedMonotonic = performance.now();
  readonly attempts: Attempt[] = [];
  readonly warnings: CompletionWarning[];
  /** Every completion the call paid for (a structured-output correction is a second one), with its price. */
  readonly billed: BilledUsage[] = [];
  /** The API the call came through, for its record. */
  readonly dialect: Dialect;
  /** The sensitive-data mode applied and what was found (counts only), once the guard ran; absent when `off`. */
  sensitiveData: SensitiveDataDecision | undefined;
  /** The deployment the call runs, once found: a call failing after that is recorded as its, under its mode. */
  deployment: { id: string; agentId: string; sensitiveData: SensitiveDataMode | undefined } | undefined;
  /** The request and the messages as the record keeps them, once the guard masked them. */
  recorded: { request: CompletionRequest; messages: ChatCompletionMessageParam[] } | undefined;
  /** The gateway's guardrails' context of this call (by guardrail name), once they ran on its request. */
  guardrailContext: ((name: string) => GuardrailContext) | undefined;
  /** Set when the answer is complete: a guardrail's refusal from then on is the answer's. */
  answered = false;
  readonly #list: WarningList;

  constructor(strict: boolean, dialect: Dialect = 'chat') {
    this.#list = new WarningList(strict);
    this.warnings = this.#list.warnings;
    this.dialect = dialect;
  }

  /**
   * Notes something that could not be honoured as asked, for the whole call (a request-level warning). Under
   * `strict`, a dropped parameter is an error instead. The same warning twice is kept once.
   */
  readonly warn = (warning: CompletionWarning): void => this.#list.warn(warning);

  /** The warnings of the attempt that answered: the call's too (already judged under strict when they were made). */
  adopt(warnings: readonly CompletionWarning[]): void {
    for (const warning of warnings) this.#list.add(warning);
  }
}

/** Warnings, each once; under `strict`, a dropped parameter or content part is an `UnsupportedParameterError`. */
export class WarningList {
  readonly warnings: CompletionWarning[] = [];
  readonly #strict: boolean;

  constructor(strict: boolean) {
    this.#strict = strict;
  }

  readonly warn = (warning: CompletionWarning): void => {
    if (this.#strict && (warning.code === 'unsupported_parameter' || warning.code === 'unsupported_content')) {
      throw new UnsupportedParameterError(
        `${warning.message} Under strict mode that is an error: remove it, or create the gateway without strict: true.`,
        warning.param ?? '',
      );
    }
    this.add(warning);
  };

  /** Each warning once (its code and message): a set, as a caller's request may bring many. */
  readonly #seen = new Set<string>();

  add(warning: CompletionWarning): void {
    const key = `${warning.code}\u0000${warning.message}`;
    if (this.#seen.has(key)) return;
    this.#seen.add(key);
    this.warnings.push(warning);
  }
}
