export { findSensitive } from './detect.ts';
export { GuardrailRefusedError, SensitiveDataError } from './errors.ts';
export type { GuardedRequest, Guardrail, GuardrailContext } from './guardrail.ts';
export { type FindingCounts, SENSITIVE_KINDS, type SensitiveKind } from './kinds.ts';
export { Masker } from './masker.ts';
export { type SensitiveDataMode, strictestMode } from './mode.ts';
export type { GuardrailOptions } from './options.ts';
