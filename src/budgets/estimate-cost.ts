import { computeCost, type TokenPricing } from '../records/compute-cost.ts';
import type { WorstCost } from './budget-ledger.ts';

/** What an inline file (an image, audio, a PDF as base64 or a `data:` URL) is counted as: a large image's tokens. */
const FILE_TOKENS = 1_600;

/**
 * Tokens a text is likely to take without a tokenizer: four ASCII characters a token, and one a token for every
 * other character (CJK, emoji…, where tokenizers give a token or more each), rounded up. An all-ASCII text (the
 * usual case) is counted from its length alone: its UTF-8 bytes, which Node counts natively, are as many as its
 * characters only when every one is ASCII (any other, a lone surrogate too, takes two bytes or more). Only a text
 * with another character is walked.
 */
export function estimateTokens(text: string): number {
  if (Buffer.byteLength(text, 'utf8') === text.length) return Math.ceil(text.length / 4);
  let other = 0;
  for (let index = 0; index < text.length; index++) if (text.charCodeAt(index) > 0x7f) other += 1;
  return Math.ceil((text.length - other) / 4) + other;
}

/** The body's fields the prompt estimate reads. */
const PROMPT_FIELDS = ['messages', 'tools', 'functions', 'response_format'] as const;

/** The last estimate of each body, with the values of its fields it was made from. */
interface Estimate {
  readonly fields: readonly unknown[];
  readonly tokens: number;
}
const estimates = new WeakMap<object, Estimate>();

/**
 * The prompt's tokens, estimated from every string of its messages, tools and output schema, and a token a field
 * (the wire carries their names); an inline file or an image counts `FILE_TOKENS`. Estimated once per body: the
 * context-window fit, the budget's worst cost and a stream's estimated usage all ask for the same body's, and get
 * the same count while its fields are the same values.
 */
export function estimatePromptTokens(body: Readonly<Record<string, unknown>>): number {
  const known = estimates.get(body);
  if (known && PROMPT_FIELDS.every((field, index) => body[field] === known.fields[index])) return known.tokens;
  let tokens = 0;
  const fields: unknown[] = [];
  for (const field of PROMPT_FIELDS) {
    fields.push(body[field]);
    tokens += tokensOf(body[field], 0);
  }
  estimates.set(body, { fields, tokens });
  return tokens;
}

function tokensOf(value: unknown, depth: number): number {
  if (typeof value === 'string') return value.startsWith('data:') ? FILE_TOKENS : estimateTokens(value);
  if (typeof value === 'number' || typeof value === 'boolean') return 1;
  let tokens = 0;
  if (Array.isArray(value)) {
    for (const item of value) tokens += tokensOf(item, depth + 1);
  } else if (typeof value === 'object' && value !== null && depth < 64) {
    const part = value as Record<string, unknown>;
    if (part.type === 'image_url' || part.type === 'input_audio' || part.type === 'file') return FILE_TOKENS;
    for (const item of Object.values(part)) tokens += 1 + tokensOf(item, depth + 1);
  }
  return tokens;
}

/** One model and price a call may be served by (a candidate: the model's offerings, then its fallbacks'). */
export interface PricedModel {
  model: { max_output_tokens: number };
  offering: { pricing?: TokenPricing | undefined };
}

/**
 * The most a call may cost, held against its budgets until it ends: the prompt's estimated tokens plus every output
 * token it may produce (`max_completion_tokens`, `max_tokens`, else the model's most), times `n`, at the dearest
 * candidate; twice over when a structured answer may need a correction. Token limits hold the prompt and the
 * `max_tokens` asked for (without one, the prompt only). A candidate whose price is not known costs nothing here,
 * as it is charged nothing after.
 */
export function worstCost(
  body: Readonly<Record<string, unknown>>,
  candidates: readonly PricedModel[],
  options: { corrections?: number } = {},
): WorstCost {
  const prompt = estimatePromptTokens(body);
  const choices = positive(body.n) ?? 1;
  const asked = positive(body.max_completion_tokens) ?? positive(body.max_tokens);
  const completions = 1 + (options.corrections ?? 0);
  let usd = 0;
  for (const { model, offering } of candidates) {
    const output = (asked ?? model.max_output_tokens) * choices;
    const cost = computeCost({ prompt_tokens: prompt, completion_tokens: output }, offering.pricing);
    usd = Math.max(usd, cost ?? 0);
  }
  return { usd: usd * completions, tokens: (prompt + (asked ?? 0) * choices) * completions };
}

function positive(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
}
