import { brandErrorClasses } from '../error-brand.ts';
import { InvalidRequestError } from '../errors.ts';
import { describeCounts, type FindingCounts, kindsIn, type SensitiveKind } from './kinds.ts';

/**
 * A call refused because its request holds sensitive data and its mode is `block`: a 400 naming the kinds found
 * and how many, never a value. No provider was sent the request.
 */
export class SensitiveDataError extends InvalidRequestError {
  override name = 'SensitiveDataError';
  /** The kinds found, in a fixed order (`email`, `phone`, `card`, `iban`, `ssn`, `secret`). */
  readonly kinds: SensitiveKind[];
  readonly counts: FindingCounts;

  /** `param`: where the data was, `messages` of a completion or `input` of an embedding. */
  constructor(counts: FindingCounts, param = 'messages') {
    super(
      `The request holds sensitive data, which this gateway blocks: ${describeCounts(counts)} (kinds: ` +
        `${kindsIn(counts).join(', ')}). Remove it and send the request again; no provider was sent it.`,
      param,
      'sensitive_data_blocked',
    );
    this.kinds = kindsIn(counts);
    this.counts = { ...counts };
  }
}

/**
 * A custom guardrail (`createGateway({ guardrails })`) refused the request or the answer: a 400 naming the
 * guardrail and its reason. Thrown by a guardrail itself, or made by `context.refuse(reason)`.
 */
export class GuardrailRefusedError extends InvalidRequestError {
  override name = 'GuardrailRefusedError';
  /** The guardrail's `name`. */
  readonly guardrail: string;
  /** What it refused: the request (no provider was sent it) or the answer (the provider answered; it was withheld). */
  readonly stage: 'request' | 'response';

  constructor(guardrail: string, reason: string, stage: 'request' | 'response' = 'request') {
    super(
      `Guardrail "${guardrail}" refused the ${stage === 'request' ? 'request' : 'answer'}: ${reason}`,
      null,
      'guardrail_refused',
    );
    this.guardrail = guardrail;
    this.stage = stage;
  }
}

// Branded as the core's errors are, so that `SensitiveDataError.is(error)` holds across the ESM and CommonJS builds.
brandErrorClasses({ SensitiveDataError, GuardrailRefusedError });
