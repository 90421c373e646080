/**
 * The checks that tell a real card number, IBAN or SSN from digits that merely look like one. Pure functions over
 * the digits, no I/O: the detectors run wherever the core runs (Node, browsers, workerd).
 */

/** The Luhn (mod 10) check every payment card number passes. */
export function passesLuhn(digits: string): boolean {
  let sum = 0;
  for (let index = 0; index < digits.length; index++) {
    let digit = digits.charCodeAt(digits.length - 1 - index) - 48;
    if (index % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/**
 * Whether the number starts as the card networks issue them (Visa 4, Mastercard 51–55 and 2221–2720,
 * American Express 34/37, Discover 6011/644–649/65, JCB 3528–3589, Diners 300–305/36/38, UnionPay 62) and has
 * their length: Luhn alone lets one random number in ten through.
 */
export function isCardNumber(digits: string): boolean {
  const length = digits.length;
  if (length < 13 || length > 19 || !passesLuhn(digits)) return false;
  const two = Number(digits.slice(0, 2));
  const three = Number(digits.slice(0, 3));
  const four = Number(digits.slice(0, 4));
  if (digits[0] === '4') return length === 13 || length === 16 || length === 19;
  if ((two >= 51 && two <= 55) || (four >= 2221 && four <= 2720)) return length === 16;
  if (two === 34 || two === 37) return length === 15;
  if (four === 6011 || two === 65 || (three >= 644 && three <= 649)) return length >= 16;
  if (four >= 3528 && four <= 3589) return length >= 16;
  if ((three >= 300 && three <= 305) || two === 36 || two === 38) return length >= 14;
  if (two === 62) return length >= 16;
  return false;
}

/** Lengths of the IBANs of common countries (ISO 13616 registry); another country's is checked by mod 97 alone. */
const IBAN_LENGTHS: Readonly<Record<string, number>> = {
  AT: 20,
  BE: 16,
  CH: 21,
  CZ: 24,
  DE: 22,
  DK: 18,
  ES: 24,
  FI: 18,
  FR: 27,
  GB: 22,
  GR: 27,
  HU: 28,
  IE: 22,
  IT: 27,
  LU: 20,
  NL: 18,
  NO: 15,
  PL: 28,
  PT: 25,
  RO: 24,
  SE: 24,
  SK: 24,
};

/** ISO 13616: the country's length, then the letters as numbers (A = 10) with the first four moved last, mod 97 = 1. */
export function isIban(compact: string): boolean {
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(compact)) return false;
  const expected = IBAN_LENGTHS[compact.slice(0, 2)];
  if (expected !== undefined && compact.length !== expected) return false;
  const rearranged = compact.slice(4) + compact.slice(0, 4);
  let remainder = 0;
  for (const character of rearranged) {
    const code = character.charCodeAt(0);
    const value = code >= 65 ? String(code - 55) : character;
    for (const digit of value) remainder = (remainder * 10 + (digit.charCodeAt(0) - 48)) % 97;
  }
  return remainder === 1;
}

/** The SSA's rules: no area 000, 666 or 900–999, no group 00, no serial 0000. */
export function isSsn(area: string, group: string, serial: string): boolean {
  const areaNumber = Number(area);
  if (areaNumber === 0 || areaNumber === 666 || areaNumber >= 900) return false;
  return group !== '00' && serial !== '0000';
}

/** Shannon entropy in bits per character: a random token has over 3.5, a word or a repeated pattern far less. */
export function bitsPerCharacter(text: string): number {
  const counts = new Map<string, number>();
  for (const character of text) counts.set(character, (counts.get(character) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) {
    const share = count / text.length;
    bits -= share * Math.log2(share);
  }
  return bits;
}
