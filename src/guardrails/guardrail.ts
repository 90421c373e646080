import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { CompletionResponse } from '../types.ts';
import type { FindingCounts } from './kinds.ts';
import type { SensitiveDataMode } from './mode.ts';

/** What a guardrail is told about the call it inspects. */
export interface GuardrailContext {
  /** The call's id (its record's). */
  readonly callId: string;
  /** The catalog model the call resolved to. */
  readonly model: string;
  readonly agentId: string | undefined;
  readonly deploymentId: string | undefined;
  /** The caller's API key id under `switchyard serve` (never the key). */
  readonly keyId: string | undefined;
  /** The sensitive-data mode applied, and what the built-in detectors found (counts only). */
  readonly sensitiveData: { readonly mode: SensitiveDataMode; readonly found: FindingCounts };
  /** Refuses the call: throws a `GuardrailRefusedError` naming this guardrail, a 400 to the caller. */
  refuse(reason: string): never;
}

/** The part of a request a guardrail sees and may rewrite: the messages as they would be sent (masked already). */
export interface GuardedRequest {
  messages: ChatCompletionMessageParam[];
}

/**
 * A check of your own, run in process on every completion (all dialects): `onRequest` after the built-in
 * sensitive-data stage and before the response cache and any provider; `onResponse` on a complete answer before the
 * caller gets it. Each may return a replacement (rewritten messages, a rewritten answer), return nothing to let it
 * pass, or refuse (`context.refuse(reason)`, or throw a `SwitchyardError` of its own). Any other error thrown is a
 * 500 `guardrail_failed` naming the guardrail.
 */
export interface Guardrail {
  /** Names the guardrail in errors, warnings and records. */
  name: string;
  onRequest?:
    | ((
        request: GuardedRequest,
        context: GuardrailContext,
        // biome-ignore lint/suspicious/noConfusingVoidType: a hook that lets the request pass returns nothing.
      ) => GuardedRequest | void | Promise<GuardedRequest | void>)
    | undefined;
  /**
   * A streamed answer reaches the caller as it is made, so it cannot be held back: `onResponse` runs on answers
   * that are not streamed, and a streamed call carries a `guardrail_not_applied` warning instead.
   */
  onResponse?:
    | ((
        answer: CompletionResponse,
        context: GuardrailContext,
        // biome-ignore lint/suspicious/noConfusingVoidType: a hook that lets the answer pass returns nothing.
      ) => CompletionResponse | void | Promise<CompletionResponse | void>)
    | undefined;
}
