import { type InternalError, ProviderError } from '../errors.ts';
import { isLocalFault } from '../internal/local-fault.ts';
import type { ResolvedProviderSettings } from './provider.ts';
import {
  abortedByCaller,
  answerTooLarge,
  type ErrorScope,
  internalErrorWithin,
  localFailure,
  TokenRequestError,
  tokenRequestFailed,
} from './provider-errors.ts';

/** Where a failure happened: sending the request (and reading its headers), or reading a stream already open. */
export type CallPhase = 'request' | 'stream';

/**
 * A provider's own error classification: which of the shared errors (`fromStatus`, `unreachable`, `timedOut`,
 * `invalidResponse`, `streamError`, …, each built with `scope`) its SDK's failure is. Only failures the skeleton did
 * not settle reach it: not our own errors, not an answer over the size limit, not the caller's abort.
 */
export type ErrorClassifier = (
  error: unknown,
  scope: ErrorScope,
  context: { signal: AbortSignal | undefined; phase: CallPhase },
) => ProviderError;

/** One provider's errors, as its adapter raises them. */
export interface ErrorMapper {
  /** Who was called, with the provider's secrets to redact: for the errors the adapter raises itself. */
  scope(model: string): ErrorScope;
  /**
   * A failure of the provider's SDK as a `ProviderError`, the same way for every provider but for `classify`; a
   * failure of this process as an `InternalError`.
   */
  map(
    error: unknown,
    model: string,
    context?: { signal?: AbortSignal | undefined; phase?: CallPhase },
  ): ProviderError | InternalError;
}

/**
 * The skeleton every provider's error mapping shares: a `ProviderError` passes unchanged, an answer larger than
 * `maxResponseBytes` and the caller's abort are told apart the same way everywhere, so is a failure of this process
 * (an `InternalError` from below, a bug, a missing runtime API: never blamed on the provider), so is a token service
 * refusing our credentials (an authentication failure, not an invalid answer), and the rest is the provider's
 * `classify`. Every message and cause is redacted of `settings.secrets`.
 */
export function errorMapper(
  provider: string,
  settings: Pick<ResolvedProviderSettings, 'secrets' | 'baseURL' | 'timeoutMs'>,
  classify: ErrorClassifier,
): ErrorMapper {
  const scope = (model: string): ErrorScope => ({
    provider,
    model,
    secrets: settings.secrets,
    baseURL: settings.baseURL,
    timeoutMs: settings.timeoutMs,
  });
  return {
    scope,
    map(error, model, context = {}) {
      if (error instanceof ProviderError) return error;
      const within = scope(model);
      const tooLarge = answerTooLarge(within, error);
      if (tooLarge) return tooLarge;
      if (context.signal?.aborted) return abortedByCaller(within, error);
      const internal = internalErrorWithin(error);
      if (internal) return internal;
      if (isLocalFault(error)) return localFailure(within, error);
      if (error instanceof TokenRequestError) return tokenRequestFailed(within, error);
      return classify(error, within, { signal: context.signal, phase: context.phase ?? 'request' });
    },
  };
}
