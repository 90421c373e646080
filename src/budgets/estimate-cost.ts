import { computeCost, type TokenPricing } from '../records/compute-cost.ts';
import type { WorstCost } from './budget-ledger.ts';

/** What an inline file (an image, audio, a PDF as base64 or a `data:` URL) is counted as: a large image's tokens. */
const FILE_TOKENS = 1_600;

/**
 * Tokens a text is likely to take without a tokenizer: four ASCII characters a token, and one a token for every
 * other character (CJK, emoji…, where tokenizers give a token or more each), rounded up.
 */
export function estimateTokens(text: string): number {
  let other = 0;
  for (let index = 0; index < text.length; index++) if (text.charCodeAt(index) > 0x7f) other += 1;
  return Math.ceil((text.length - other) / 4) + other;
}

/**
 * The prompt's tokens, estimated from every string of its messages, tools and output schema, and a token a field
 * (the wire carries their names); an inline file or an image counts `FILE_TOKENS`.
 */
export function estimatePromptTokens(body: Readonly<Record<string, unknown>>): number {
  let tokens = 0;
  const visit = (value: unknown, depth: number): void => {
    if (typeof value === 'string') tokens += value.startsWith('data:') ? FILE_TOKENS : estimateTokens(value);
    else if (typeof value === 'number' || typeof value === 'boolean') tokens += 1;
    else if (Array.isArray(value)) for (const item of value) visit(item, depth + 1);
    else if (typeof value === 'object' && value !== null && depth < 64) {
      const part = value as Record<string, unknown>;
      if (part.type === 'image_url' || part.type === 'input_audio' || part.type === 'file') {
        tokens += FILE_TOKENS;
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
