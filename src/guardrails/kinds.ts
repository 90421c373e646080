/** The kinds of sensitive data the built-in detectors find, each replaced by its own placeholder when masked. */
export const SENSITIVE_KINDS = ['email', 'phone', 'card', 'iban', 'ssn', 'secret'] as const;
export type SensitiveKind = (typeof SENSITIVE_KINDS)[number];

/** How a kind is named to people (error messages, warnings), singular and plural: never with the value found. */
const LABELS: Readonly<Record<SensitiveKind, [string, string]>> = {
  email: ['e-mail address', 'e-mail addresses'],
  phone: ['phone number', 'phone numbers'],
  card: ['payment card number', 'payment card numbers'],
  iban: ['IBAN', 'IBANs'],
  ssn: ['US social security number', 'US social security numbers'],
  secret: ['secret (an API key or token)', 'secrets (API keys or tokens)'],
};

/** `[EMAIL_1]`: the placeholder of the first distinct e-mail address of a call. */
export function placeholderOf(kind: SensitiveKind, index: number): string {
  return `[${kind.toUpperCase()}_${index}]`;
}

/** Findings of one call by kind: counts only, never the values. */
export type FindingCounts = Partial<Record<SensitiveKind, number>>;

/** `2 e-mail addresses and 1 payment card number`: the counts, for messages. */
export function describeCounts(counts: FindingCounts): string {
  const parts = SENSITIVE_KINDS.filter((kind) => counts[kind]).map((kind) => {
    const count = counts[kind]!;
    return `${count} ${LABELS[kind][count === 1 ? 0 : 1]}`;
  });
  return parts.length <= 1 ? parts.join('') : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}

/** The kinds found, in the fixed order of `SENSITIVE_KINDS`. */
export function kindsIn(counts: FindingCounts): SensitiveKind[] {
  return SENSITIVE_KINDS.filter((kind) => counts[kind]);
}
