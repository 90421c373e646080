import { brandErrorClasses, isBrandedInstance } from './error-brand.ts';
import type { Attempt } from './types.ts';

type ErrorClass = abstract new (...args: never[]) => SwitchyardError;

/**
 * Every error Switchyard throws is a `SwitchyardError`. Its fields map one to one onto the OpenAI error body
 * (`{ error: { message, type, param, code } }`) plus the HTTP status, so the same object serves in-process callers
 * and `switchyard serve`.
 */
export class SwitchyardError extends Error {
  override name = 'SwitchyardError';
  readonly status: number;
  readonly type: string;
  readonly code: string | null;
  readonly param: string | null;
  /** Every provider attempt made before the error escaped (empty when the request never reached a provider). */
  readonly attempts: Attempt[];
  /** Id of the call's record (the failure is recorded too); set once the error leaves `createCompletion`. */
  callId: string | undefined;
  constructor(
    message: string,
    options: {
      status: number;
      type: string;
      code?: string | null;
      param?: string | null;
      attempts?: Attempt[];
      cause?: unknown;
    },
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = options.status;
    this.type = options.type;
    this.code = options.code ?? null;
    this.param = options.param ?? null;
    this.attempts = options.attempts ?? [];
    this.callId = undefined;
  }

  /**
   * Whether `value` is an error of this class (or one extending it) from any copy of the package, also where
   * `instanceof` is false: the ESM and CommonJS builds both loaded. `RateLimitError.is(error)` for one kind. */
  static is<T extends ErrorClass>(this: T, value: unknown): value is InstanceType<T> {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class `is` was called on, a subclass included.
    return isBrandedInstance(this, value);
  }

  /** The OpenAI error body. */
  toJSON(): { error: { message: string; type: string; param: string | null; code: string | null } } {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

/** The request itself is wrong: fix it, a retry will not help. */
export class InvalidRequestError extends SwitchyardError {
  override name = 'InvalidRequestError';
  constructor(message: string, param: string | null = null, code = 'invalid_request') {
    super(message, { status: 400, type: 'invalid_request_error', code, param });
  }
}

/** `model` names nothing in the catalog. */
export class ModelNotFoundError extends SwitchyardError {
  override name = 'ModelNotFoundError';
  readonly suggestions: string[];
  /** `providers`: those with credentials, suggested as `<provider>/<model>` for a model the catalog does not list. */
  constructor(model: string, suggestions: string[], providers: readonly string[] = []) {
    const hint = suggestions.length > 0 ? ` Did you mean ${suggestions.map((id) => `"${id}"`).join(' or ')}?` : '';
    const named = providers.slice(0, 4).map((provider) => `"${provider}/${model}"`);
    const open =
      named.length > 0
        ? ` To call a model the catalog does not list, name its provider: ${named.join(', ')}` +
          `${providers.length > named.length ? ', …' : ''} (providers with credentials).`
        : ' To call a model the catalog does not list, name its provider: "<provider>/<model>".';
    super(
      `Unknown model "${model}".${hint}${open} listModels() (or GET /v1/models) lists the catalog; the model ` +
        'parameter also takes "<agent_id>/<model>" and "switchyard/deployment/<id>".',
      { status: 404, type: 'invalid_request_error', code: 'model_not_found', param: 'model' },
    );
    this.suggestions = suggestions;
  }
}

/** A parameter the model cannot honour, raised instead of a warning when the gateway is strict. */
export class UnsupportedParameterError extends SwitchyardError {
  override name = 'UnsupportedParameterError';
  constructor(message: string, param: string) {
    super(message, { status: 400, type: 'invalid_request_error', code: 'unsupported_parameter', param });
  }
}

/**
 * No provider of the model has credentials configured: the server's configuration is incomplete, not the caller's
 * key wrong. So a 503 `server_error` (code `provider_not_configured`), never a 401 that would make a client ask
 * its user for a new key. The message names the variables to set.
 */
export class MissingCredentialsError extends SwitchyardError {
  override name = 'MissingCredentialsError';
  constructor(message: string, attempts: Attempt[]) {
    super(message, { status: 503, type: 'server_error', code: 'provider_not_configured', attempts });
  }
}

/** A provider answered with an error, or could not be reached. */
export class ProviderError extends SwitchyardError {
  override name = 'ProviderError';
  readonly provider: string;
  readonly model: string;
  /** Whether trying again (or another provider) may succeed: 408/409/429/5xx/529, timeouts, dropped connections. */
  readonly retryable: boolean;
  /** Milliseconds the provider asked us to wait (`retry-after-ms`, `retry-after`, Gemini `retryDelay`). */
  readonly retryAfterMs: number | undefined;

  constructor(
    message: string,
    options: {
      provider: string;
      model: string;
      status: number;
      type?: string;
      code?: string | null;
      param?: string | null;
      retryable: boolean;
      retryAfterMs?: number | undefined;
      attempts?: Attempt[];
      cause?: unknown;
    },
  ) {
    super(message, { type: options.type ?? typeForStatus(options.status), ...options });
    this.provider = options.provider;
    this.model = options.model;
    this.retryable = options.retryable;
    this.retryAfterMs = options.retryAfterMs;
  }

  /** A copy carrying the full attempt chain, thrown once every candidate has been tried. */
  withAttempts(attempts: Attempt[]): ProviderError {
    const copy = Object.create(Object.getPrototypeOf(this)) as ProviderError;
    Object.assign(copy, this, { attempts, stack: this.stack, message: this.message });
    // `cause` is not enumerable, so Object.assign leaves it behind.
    if (this.cause !== undefined)
      Object.defineProperty(copy, 'cause', { value: this.cause, writable: true, configurable: true });
    return copy;
  }
}

/**
 * A failure inside this process while calling a provider, not the provider's answer: a bug (a `TypeError`, a
 * `ReferenceError`), or a runtime this package does not support (an API it needs is missing). 500 `server_error`,
 * code `internal_error`, never retried: the same process would fail the same way. The message names what failed
 * and where, and says so when this Node.js is older than the package supports.
 */
export class InternalError extends SwitchyardError {
  override name = 'InternalError';
  constructor(message: string, cause?: unknown) {
    super(message, { status: 500, type: 'server_error', code: 'internal_error', cause });
  }
}

export class AuthenticationError extends ProviderError {
  override name = 'AuthenticationError';
}

export class RateLimitError extends ProviderError {
  override name = 'RateLimitError';
}

/**
 * The first byte of a stream reached the caller, then the provider failed: never retried, surfaced from the iterator.
 */
export class StreamInterruptedError extends ProviderError {
  override name = 'StreamInterruptedError';
}

/**
 * The model's answer could not be made to match the requested schema: after extraction and repair, one corrective
 * retry and the optional `structured_output_fallback` model. Holds the last raw answer and what was wrong with it.
 */
export class StructuredOutputError extends SwitchyardError {
  override name = 'StructuredOutputError';
  /** The last answer as the model wrote it. */
  readonly raw: string | null;
  /** Validation errors of that answer, as `<path> <problem>` lines. */
  readonly validationErrors: string[];
  constructor(message: string, raw: string | null, validationErrors: string[], attempts: Attempt[]) {
    super(message, { status: 502, type: 'api_error', code: 'structured_output_invalid', attempts });
    this.raw = raw;
    this.validationErrors = validationErrors;
  }
}

/**
 * An answer's tool calls whose arguments did not match their tools' `parameters` after one retry, with
 * `tool_call_validation: "error"`. Holds what was wrong.
 */
export class ToolArgumentsError extends SwitchyardError {
  override name = 'ToolArgumentsError';
  /** Validation errors, as `<tool>: <path> <problem>` lines. */
  readonly validationErrors: string[];
  constructor(message: string, validationErrors: string[], attempts: Attempt[]) {
    super(message, { status: 502, type: 'api_error', code: 'tool_arguments_invalid', attempts });
    this.validationErrors = validationErrors;
  }
}

function typeForStatus(status: number): string {
  if (status === 401 || status === 403) return 'authentication_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}

/** Upstream statuses after which another try may succeed. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * Catalog data that does not hold together: a row of `extendCatalog`, a `--catalog` file, or a refreshed source.
 * The message names where (file, row and model id) and which field.
 */
export class CatalogError extends SwitchyardError {
  override name = 'CatalogError';
  /** The file or URL the data came from, when it came from one. */
  readonly source: string | undefined;
  /** The row's index in `models`, when one row is at fault. */
  readonly row: number | undefined;
  /** The field at fault, as a path (`providers[0].pricing.input`). */
  readonly field: string | undefined;
  constructor(message: string, where: { source?: string; row?: number; field?: string } = {}) {
    super(message, { status: 400, type: 'invalid_request_error', code: 'invalid_catalog', param: where.field ?? null });
    this.source = where.source;
    this.row = where.row;
    this.field = where.field;
  }
}

/**
 * A budget (`createGateway({ budgets })`, `serve --budget`) is spent: the call is refused before any provider is
 * asked. 402 with OpenAI's `insufficient_quota` code, naming the budget.
 */
export class BudgetExceededError extends SwitchyardError {
  override name = 'BudgetExceededError';
  readonly budget: { scope: string; usd: number; window: string };
  /** Dollars spent under the budget when the call was refused. */
  readonly spent: number;
  constructor(what: string, budget: { scope: string; usd: number; window: string }, spent: number) {
    super(`Budget exceeded: ${what} ($${spent.toFixed(4)} spent). The call was not sent.`, {
      status: 402,
      type: 'insufficient_quota',
      code: 'insufficient_quota',
    });
    this.budget = { scope: budget.scope, usd: budget.usd, window: budget.window };
    this.spent = spent;
  }
}

/**
 * A gateway limit (tokens per minute of a key, agent or trace) is reached: the call is refused before any provider is
 * asked. 429 with `retryAfterMs` until the window turns.
 */
export class LimitExceededError extends SwitchyardError {
  override name = 'LimitExceededError';
  readonly retryAfterMs: number;
  constructor(message: string, retryAfterMs: number) {
    super(message, { status: 429, type: 'rate_limit_error', code: 'rate_limit_exceeded' });
    this.retryAfterMs = retryAfterMs;
  }
}

/**
 * The caller may not do this: an API key's limits (agents, models, scopes) forbid it. 403 with
 * `insufficient_permissions`; nothing was sent to a provider.
 */
export class PermissionDeniedError extends SwitchyardError {
  override name = 'PermissionDeniedError';
  constructor(message: string) {
    super(message, { status: 403, type: 'permission_error', code: 'insufficient_permissions' });
  }
}

/**
 * A shared engine the gateway needs (PostgreSQL, Redis) did not answer in time: 503 with `storage_unavailable`,
 * naming the component. Retry later; the gateway reconnects by itself.
 */
export class StorageUnavailableError extends SwitchyardError {
  override name = 'StorageUnavailableError';
  readonly component: string;
  constructor(component: string, message: string, cause?: unknown) {
    super(message, { status: 503, type: 'server_error', code: 'storage_unavailable', cause });
    this.component = component;
  }
}

brandErrorClasses({ SwitchyardError, InvalidRequestError, ModelNotFoundError, UnsupportedParameterError });
brandErrorClasses({ MissingCredentialsError, ProviderError, InternalError, AuthenticationError, RateLimitError });
brandErrorClasses({ StreamInterruptedError, StructuredOutputError, ToolArgumentsError, CatalogError });
brandErrorClasses({ BudgetExceededError, LimitExceededError, PermissionDeniedError, StorageUnavailableError });
