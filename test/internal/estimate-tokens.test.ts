import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { estimatePromptTokens, estimateTokens } from '../../src/internal/estimate-tokens.ts';
import { anyCodePoint } from '../helpers/code-points.ts';

/** The estimate as it was before the ASCII fast path: every character walked. */
function walked(text: string): number {
  let other = 0;
  for (let index = 0; index < text.length; index++) if (text.charCodeAt(index) > 0x7f) other += 1;
  return Math.ceil((text.length - other) / 4) + other;
}

/** The prompt estimate as it was before it was memoised (a closure walking the four fields), text counted as text. */
function walkedPrompt(body: Readonly<Record<string, unknown>>): number {
  let tokens = 0;
  const visit = (value: unknown, depth: number): void => {
    if (typeof value === 'string') tokens += walked(value);
    else if (typeof value === 'number' || typeof value === 'boolean') tokens += 1;
    else if (Array.isArray(value)) for (const item of value) visit(item, depth + 1);
    else if (typeof value === 'object' && value !== null && depth < 64) {
      const part = value as Record<string, unknown>;
      if (part.type === 'image_url' || part.type === 'input_audio' || part.type === 'file') {
        tokens += 1_600;
        return;
      }
      for (const item of Object.values(part)) {
        tokens += 1;
        visit(item, depth + 1);
      }
    }
  };
  for (const field of ['messages', 'tools', 'functions', 'response_format']) visit(body[field], 0);
  return tokens;
}

describe('estimateTokens', () => {
  it('gives exactly what walking every character gives, for any string', () => {
    const texts = fc.oneof(
      fc.string({ unit: 'grapheme-ascii', maxLength: 300 }),
      fc.string({ unit: anyCodePoint, maxLength: 300 }),
      fc.string({ unit: 'grapheme', maxLength: 300 }),
      fc.string({ unit: fc.constantFrom('a', ' ', '\u007f', '\u0080', 'é', '中', '\ud83d', '\ude00'), maxLength: 50 }),
    );
    fc.assert(
      fc.property(texts, (text) => estimateTokens(text) === walked(text)),
      { numRuns: 2_000 },
    );
  });

  it('counts four ASCII characters a token and one for each other character', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('abcde')).toBe(2);
    expect(estimateTokens('\u007f\u007f\u007f\u007f')).toBe(1);
    expect(estimateTokens('abcd中文')).toBe(3);
    expect(estimateTokens('😀')).toBe(2);
  });
});

describe('estimatePromptTokens', () => {
  const body = () => ({
    model: 'm',
    messages: [
      { role: 'user', content: 'Hello there, how are you?' },
      { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] },
    ],
    tools: [{ type: 'function', function: { name: 'look', parameters: { type: 'object', strict: true } } }],
    response_format: { type: 'json_object' },
  });

  it('counts strings, fields, numbers and files as before, for any body', () => {
    expect(estimatePromptTokens(body())).toBe(walkedPrompt(body()));
    const value = fc.oneof(fc.jsonValue({ maxDepth: 6 }), fc.constant({ type: 'file', file: {} }));
    const bodies = fc.record(
      { messages: value, tools: value, functions: value, response_format: value, model: fc.string() },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(bodies, (asked) => estimatePromptTokens(asked) === walkedPrompt(asked)),
      { numRuns: 500 },
    );
  });

  it('counts a data: URL as a file only inside an image, audio or file part; text starting with data: is text', () => {
    const text = `data:${'x'.repeat(400_000)}`;
    const url = `data:image/png;base64,${'A'.repeat(400_000)}`;
    const asText = estimatePromptTokens({ messages: [{ role: 'user', content: text }] });
    expect(asText).toBeGreaterThan(100_000);
    const asPart = estimatePromptTokens({ messages: [{ role: 'user', content: [{ type: 'text', text }] }] });
    expect(asPart).toBeGreaterThan(100_000);
    const asImage = estimatePromptTokens({
      messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url } }] }],
    });
    expect(asImage).toBeLessThan(2_000);
  });

  it('counts a body once, and again when one of its fields is a different value', () => {
    const asked: Record<string, unknown> = body();
    const first = estimatePromptTokens(asked);
    expect(estimatePromptTokens(asked)).toBe(first);
    asked.messages = [{ role: 'user', content: 'x'.repeat(400) }];
    expect(estimatePromptTokens(asked)).toBe(walkedPrompt(asked));
    delete asked.tools;
    expect(estimatePromptTokens(asked)).toBe(walkedPrompt(asked));
  });
});
