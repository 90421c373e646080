import { bitsPerCharacter, isCardNumber, isIban, isSsn } from './checksums.ts';
import type { SensitiveKind } from './kinds.ts';

/** Where a detector found a value in a text: `[start, end)`, and its kind. Never copied anywhere but the masker. */
export interface Finding {
  kind: SensitiveKind;
  start: number;
  end: number;
}

/** One detector: candidates by a pattern, then a check that tells the real thing from look-alikes. */
interface Detector {
  kind: SensitiveKind;
  pattern: RegExp;
  /** The part of the match that is the value (`[start, end)` within the match); default all of it. */
  accept(match: RegExpExecArray): { start: number; end: number } | boolean;
}

const whole = true;

/** Provider key shapes: OpenAI, Anthropic, AWS access keys, GitHub, Slack, Google, GitLab, Switchyard's own. */
const KEY_SHAPES = [
  'sk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}',
  '(?:AKIA|ASIA)[0-9A-Z]{16}',
  'gh[pousr]_[A-Za-z0-9]{36,}',
  'github_pat_[A-Za-z0-9_]{40,}',
  'xox[abeprs]-[A-Za-z0-9-]{10,}',
  'AIza[0-9A-Za-z_-]{35}',
  'glpat-[A-Za-z0-9_-]{20,}',
  'sy-[A-Za-z0-9_-]{40,}',
];
/** A name that says its value is a secret: `api_key`, `OPENAI_API_KEY`, `db_password`, `auth_token`… */
const SECRET_NAME = '(?:[a-z0-9_-]*(?:api[_-]?key|secret|token|password|passwd|pwd|credentials?|auth))';
/** One label of a domain name: letters and digits, dashes inside. */
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?';

/**
 * The detectors. Patterns find candidates; validation decides:
 * - e-mail: local part, `@`, a domain with a dot and a top-level name of letters;
 * - phone: `+` and 8–15 digits in groups, or the North American `(415) 555-0100` / `415-555-0100` shape (area code
 *   2–9 first). Digits without separators (order numbers), dates and versions are not phone numbers;
 * - card: 13–19 digits (spaces or dashes between groups), Luhn-checked and of a network's prefix and length;
 * - IBAN: country, check digits and account, with or without spaces every four, ISO 13616 mod-97 checked;
 * - SSN: `123-45-6789` written with dashes (nine bare digits are too often something else), the SSA's rules;
 * - secret: the shapes of provider keys (`sk-`, `sk-ant-`, `sk-proj-`, `AKIA`/`ASIA`, `ghp_`/`gho_`/`ghs_`/`ghu_`,
 *   `github_pat_`, `xoxb-`/`xoxp-`…, `AIza`, `glpat-`, `sy-`), PEM private keys, and a long random value assigned to
 *   a name that says it is one (`api_key=`, `"token": "…"`, `password:`): random meaning over 3.5 bits a character.
 */
const DETECTORS: readonly Detector[] = [
  {
    kind: 'secret',
    pattern: /-----BEGIN (?:[A-Z]+ )?PRIVATE KEY-----[\s\S]*?-----END (?:[A-Z]+ )?PRIVATE KEY-----/g,
    accept: () => whole,
  },
  {
    kind: 'secret',
    pattern: new RegExp(`(?<![A-Za-z0-9_-])(?:${KEY_SHAPES.join('|')})(?![A-Za-z0-9_-])`, 'g'),
    accept: () => whole,
  },
  {
    kind: 'secret',
    pattern: new RegExp(`\\b${SECRET_NAME}["']?\\s*[:=]\\s*["']?([A-Za-z0-9_\\-+/=.~]{16,})`, 'gi'),
    accept: (match) => {
      const value = match[1]!;
      if (bitsPerCharacter(value) < 3.5) return false;
      const start = match[0].length - value.length;
      return { start, end: match[0].length };
    },
  },
  {
    kind: 'email',
    pattern: new RegExp(
      `(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]{1,64}@${LABEL}(?:\\.${LABEL})*\\.[A-Za-z]{2,24}\\b`,
      'g',
    ),
    accept: () => whole,
  },
  {
    kind: 'iban',
    pattern: /\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,4})?\b/g,
    accept: (match) => isIban(match[0].replaceAll(' ', '')),
  },
  {
    kind: 'card',
    pattern: /(?<![\d.-])\d(?:[ -]?\d){12,18}(?![\d.-]?\d)/g,
    accept: (match) => isCardNumber(match[0].replace(/[ -]/g, '')),
  },
  {
    kind: 'ssn',
    pattern: /(?<![\d-])(\d{3})-(\d{2})-(\d{4})(?![\d-])/g,
    accept: (match) => isSsn(match[1]!, match[2]!, match[3]!),
  },
  {
    kind: 'phone',
    pattern: /(?<![\w+])\+\d{1,3}(?:[ .-]?\(?\d{1,5}\)?){2,6}(?![\w-])/g,
    accept: (match) => {
      const digits = match[0].replace(/\D/g, '').length;
      return digits >= 8 && digits <= 15;
    },
  },
  {
    kind: 'phone',
    pattern: /(?<![\w.+-])(?:\([2-9]\d{2}\) ?|[2-9]\d{2}[ .-])[2-9]\d{2}[ .-]\d{4}(?![\w-]|\.\d)/g,
    accept: () => whole,
  },
];

/**
 * Every value of a known kind in `text`, in order, none overlapping: where two detectors claim the same characters
 * (a card number inside a secret's assignment), the finding that starts first wins, then the longer one.
 */
export function findSensitive(text: string): Finding[] {
  const found: Finding[] = [];
  for (const detector of DETECTORS) {
    detector.pattern.lastIndex = 0;
    for (let match = detector.pattern.exec(text); match; match = detector.pattern.exec(text)) {
      const accepted = detector.accept(match);
      if (accepted === false) continue;
      const span = accepted === true ? { start: 0, end: match[0].length } : accepted;
      found.push({ kind: detector.kind, start: match.index + span.start, end: match.index + span.end });
    }
  }
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  const kept: Finding[] = [];
  for (const finding of found) if (!kept.length || finding.start >= kept.at(-1)!.end) kept.push(finding);
  return kept;
}
