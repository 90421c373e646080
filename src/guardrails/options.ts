import type { Guardrail } from './guardrail.ts';
import type { SensitiveDataMode } from './mode.ts';

/** The gateway's guardrails (`createGateway` options), docs/teams.md. */
export interface GuardrailOptions {
  /**
   * Personal data and secrets in requests: `mask`, `block` or `off` (default); a key's or a deployment's stricter
   * mode wins.
   */
  sensitiveData?: SensitiveDataMode | undefined;
  /** Checks of your own on every completion's request and answer, run in order. */
  guardrails?: Guardrail[] | undefined;
}
