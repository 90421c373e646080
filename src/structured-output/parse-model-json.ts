import { lazyRequire } from '../internal/lazy-require.ts';

// Loaded when an answer first needs repairing, not with the package.
const loadJsonRepair = lazyRequire<typeof import('jsonrepair')>('jsonrepair');

/**
 * Reads the JSON a model meant to write: the text as is, else the inside of a code fence, else the outermost
 * `{…}`/`[…]` span, each repaired (trailing commas, single quotes, missing brackets, comments) when plain parsing
 * fails.
 * Returns `undefined` when no JSON can be recovered.
 */
export function parseModelJson(text: string): { value: unknown; text: string } | undefined {
  const spans = [...candidates(text)];
  for (const candidate of spans) {
    const parsed = tryParse(candidate);
    if (parsed) return parsed;
  }
  // Repair only what already looks like JSON: repairing prose would "succeed" by quoting it.
  for (const candidate of spans) {
    if (!/^[{[]/.test(candidate)) continue;
    const parsed = tryParse(tryRepair(candidate));
    if (parsed) return parsed;
  }
  return undefined;
}

function* candidates(text: string): Iterable<string> {
  const trimmed = text.trim();
  yield trimmed;
  const fence = /```(?:json|JSON)?\s*\n?([\s\S]*?)```/.exec(trimmed);
  if (fence) yield fence[1]!.trim();
  const start = trimmed.search(/[{[]/);
  const end = Math.max(trimmed.lastIndexOf('}'), trimmed.lastIndexOf(']'));
  if (start !== -1 && end > start) yield trimmed.slice(start, end + 1);
  else if (start !== -1) yield trimmed.slice(start);
}

function tryParse(text: string | undefined): { value: unknown; text: string } | undefined {
  if (!text) return undefined;
  try {
    return { value: JSON.parse(text), text };
  } catch {
    return undefined;
  }
}

function tryRepair(text: string): string | undefined {
  try {
    return loadJsonRepair().jsonrepair(text);
  } catch {
    return undefined;
  }
}
