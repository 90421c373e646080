import { describe, expect, it } from 'vitest';
import { isCardNumber, isIban, isSsn, passesLuhn } from '../../src/guardrails/checksums.ts';
import { findSensitive } from '../../src/guardrails/detect.ts';
import { Masker } from '../../src/guardrails/masker.ts';
import { strictestMode } from '../../src/guardrails/mode.ts';

/** The kinds found in `text`, with the exact text of each finding. */
function found(text: string): Array<[string, string]> {
  return findSensitive(text).map((finding) => [finding.kind, text.slice(finding.start, finding.end)]);
}

describe('the detectors find real values', () => {
  it.each([
    ['email', 'write to jane.doe+billing@example.co.uk today', 'jane.doe+billing@example.co.uk'],
    ['email', 'Contact: o_brien@mail-server.example.org.', 'o_brien@mail-server.example.org'],
    ['phone', 'call +44 20 7946 0958 tomorrow', '+44 20 7946 0958'],
    ['phone', 'or +1-415-555-0132', '+1-415-555-0132'],
    ['phone', 'desk (415) 555-0132, ext 4', '(415) 555-0132'],
    ['phone', 'mobile 415.555.0132', '415.555.0132'],
    ['card', 'Visa 4111 1111 1111 1111 exp 12/29', '4111 1111 1111 1111'],
    ['card', 'mc 5555-5555-5555-4444', '5555-5555-5555-4444'],
    ['card', 'amex 378282246310005', '378282246310005'],
    ['iban', 'pay to DE89 3704 0044 0532 0130 00 please', 'DE89 3704 0044 0532 0130 00'],
    ['iban', 'GB82WEST12345698765432', 'GB82WEST12345698765432'],
    ['iban', 'FR14 2004 1010 0505 0001 3M02 606', 'FR14 2004 1010 0505 0001 3M02 606'],
    ['ssn', 'SSN 123-45-6789 on file', '123-45-6789'],
    ['secret', 'OPENAI_API_KEY=sk-proj-AbCdEf0123456789GhIjKlMnOp', 'sk-proj-AbCdEf0123456789GhIjKlMnOp'],
    ['secret', 'key sk-ant-api03-AbCdEf0123456789-GhIjKlMnOpQrSt', 'sk-ant-api03-AbCdEf0123456789-GhIjKlMnOpQrSt'],
    ['secret', 'aws AKIAIOSFODNN7EXAMPLE', 'AKIAIOSFODNN7EXAMPLE'],
    ['secret', 'ghp_1A2b3C4d5E6f7G8h9I0jKlMnOpQrStUvWxYz', 'ghp_1A2b3C4d5E6f7G8h9I0jKlMnOpQrStUvWxYz'],
    ['secret', 'slack xoxb-1234567890-abcdefghijkl', 'xoxb-1234567890-abcdefghijkl'],
    ['secret', 'AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW', 'AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW'],
    ['secret', '{"api_key": "Zx8pQ2mL9vR4tY7wK3nB6cF1"}', 'Zx8pQ2mL9vR4tY7wK3nB6cF1'],
    ['secret', 'DB_PASSWORD=h7Gk2pQ9xLm4Vt8s', 'h7Gk2pQ9xLm4Vt8s'],
  ])('%s in %j', (kind, text, value) => {
    expect(found(text)).toEqual([[kind, value]]);
  });

  it('a PEM private key, whole', () => {
    const pem = '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----';
    expect(found(`key:\n${pem}\nend`)).toEqual([['secret', pem]]);
  });
});

describe('and leave look-alikes alone', () => {
  it.each([
    ['a card number failing Luhn', 'card 4111 1111 1111 1112'],
    ['a Luhn-valid number of no card network', 'ref 9111 1111 1111 1110'],
    ['an IBAN with a wrong checksum', 'DE88 3704 0044 0532 0130 00'],
    ['an IBAN of the wrong length for its country', 'DE89 3704 0044 0532 0130 0'],
    ['SSN area 000', '000-12-3456'],
    ['SSN area 666', '666-12-3456'],
    ['SSN area 9xx', '912-34-5678'],
    ['SSN group 00', '123-00-4567'],
    ['SSN serial 0000', '123-45-0000'],
    ['ISO dates', 'from 2024-01-15 to 2025-12-31'],
    ['US dates', 'on 12/31/2024'],
    ['version strings', 'upgrade 1.2.3 to v10.4.12 (build 2024.11.3)'],
    ['an IP address', 'host 192.168.100.200'],
    ['order numbers', 'order 1234567890123, invoice 20241115-0042, ticket #554433'],
    ['amounts', 'total 1,234,567.89 USD'],
    ['a short phone-like number', 'ext 555-0132'],
    ['a number with + but few digits', 'score +1 2'],
    ['an area code starting with 1', '123-555-0132'],
    ['a word after token=', 'token=hello'],
    ['a low-entropy password value', 'password: aaaaaaaaaaaaaaaaaaaa'],
    ['a UUID', 'id 3f2b8c1e-9d4a-4e7b-8c2f-1a2b3c4d5e6f'],
    ['a git sha', 'commit 6d7c9ec0b1a2f3e4d5c6b7a8901234567890abcd'],
    ['an at sign without a domain', 'meet @ noon, or ping @jane'],
    ['a "sk-" word', 'the sk-learn package'],
  ])('%s', (_label, text) => {
    expect(found(text)).toEqual([]);
  });
});

describe('the checks', () => {
  it('Luhn, card networks, IBAN mod 97 and the SSA rules', () => {
    expect(passesLuhn('79927398713')).toBe(true);
    expect(passesLuhn('79927398710')).toBe(false);
    expect(isCardNumber('6011111111111117')).toBe(true);
    expect(isCardNumber('4111111111111')).toBe(false);
    expect(isIban('NL91ABNA0417164300')).toBe(true);
    expect(isIban('NL91ABNA0417164301')).toBe(false);
    expect(isSsn('078', '05', '1120')).toBe(true);
    expect(isSsn('900', '05', '1120')).toBe(false);
  });

  it('the strictest mode wins: block over mask over off', () => {
    expect(strictestMode('off', 'mask', undefined)).toBe('mask');
    expect(strictestMode('mask', 'block', 'off')).toBe('block');
    expect(strictestMode(null, undefined)).toBe('off');
  });
});

describe('masking', () => {
  it('numbers placeholders by kind, one per distinct value however it is written, and counts every finding', () => {
    const masker = new Masker();
    const first = masker.mask('Mail ann@example.com or bob@example.com; call (415) 555-0132.');
    const second = masker.mask('Again ann@example.com, or 415-555-0132.');
    expect(first).toBe('Mail [EMAIL_1] or [EMAIL_2]; call [PHONE_1].');
    expect(second).toBe('Again [EMAIL_1], or [PHONE_1].');
    expect(masker.counts).toEqual({ email: 3, phone: 2 });
  });

  it('leaves a text without findings as it is', () => {
    const masker = new Masker();
    expect(masker.mask('Nothing to see: version 2.1.0, 2024-05-01.')).toBe(
      'Nothing to see: version 2.1.0, 2024-05-01.',
    );
    expect(masker.found).toBe(false);
  });
});
