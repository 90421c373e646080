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
  const trimmed = text.trim();
  // The usual answer is JSON as it is: the other candidates are looked for only when it is not.
  const plain = tryParse(trimmed);
  if (plain) return plain;
  const spans = [trimmed, ...otherCandidates(trimmed)];
  for (let index = 1; index < spans.length; index++) {
    const parsed = tryParse(spans[index]);
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

/** After the trimmed text itself: the inside of a code fence, then the outermost `{…}`/`[…]` span. */
function* otherCandidates(trimmed: string): Iterable<string> {
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
