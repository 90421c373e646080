import { exampleFromLark } from '../../internal/example-from-lark.ts';
import { textMatching } from '../../internal/example-from-pattern.ts';
import { exampleFromSchema } from '../../structured-output/example-from-schema.ts';
import { compileSchema } from '../../structured-output/json-schema-validator.ts';
import { grammarInDescription } from '../custom-tools.ts';
import { fileNamed, type OfferedTool, type Turn } from './conversation.ts';

/** The file a tool writes when the request names none. */
const DEFAULT_FILE = 'simulated.txt';
const FREE_TEXT = 'Simulated by Switchyard';
const FILE_PROPERTY = /file|path/i;

/**
 * A function tool's arguments: an instance of its schema, with the file the request names in a file or path field,
 * and a text its grammar accepts in a string whose description gives one (a custom tool sent as a function).
 */
export function functionArguments(tool: OfferedTool, turn: Turn): Record<string, unknown> {
  const schema = tool.parameters ?? { type: 'object' };
  const args = withGrammarTexts(schema, (exampleFromSchema(schema) ?? {}) as Record<string, unknown>, turn);
  const file = fileNamed(turn.request);
  if (!file || typeof args !== 'object' || args === null || Array.isArray(args)) return args;
  const fields = Object.keys(args).filter((key) => FILE_PROPERTY.test(key) && typeof args[key] === 'string');
  if (fields.length === 0) return args;
  const withFile = { ...args, ...Object.fromEntries(fields.map((key) => [key, file])) };
  try {
    return compileSchema(schema).validate(withFile) ? withFile : args;
  } catch {
    return args;
  }
}

/** The arguments with each string property whose description gives a grammar written in it. */
function withGrammarTexts(
  schema: Record<string, unknown>,
  args: Record<string, unknown>,
  turn: Turn,
): Record<string, unknown> {
  const properties = schema.properties;
  if (typeof properties !== 'object' || properties === null || typeof args !== 'object' || args === null) return args;
  const texts: Record<string, string> = {};
  for (const [key, property] of Object.entries(properties as Record<string, { description?: unknown }>)) {
    const grammar = grammarInDescription(property?.description);
    if (grammar && typeof args[key] === 'string') texts[key] = textFor(grammar, turn);
  }
  return Object.keys(texts).length === 0 ? args : { ...args, ...texts };
}

/**
 * A custom tool's input, in its format: a text its Lark grammar accepts (Codex's `apply_patch` gets a patch that adds
 * the file the request names), one its regex matches whole, or free text. A grammar the simulator cannot derive a
 * text from gets free text, as a model that ignored it would write.
 */
export function customInput(tool: OfferedTool, turn: Turn): string {
  return textFor(tool.grammar, turn);
}

function textFor(grammar: OfferedTool['grammar'], turn: Turn): string {
  const file = fileNamed(turn.request) ?? DEFAULT_FILE;
  try {
    if (grammar?.syntax === 'lark') return exampleFromLark(grammar.definition, { file, text: FREE_TEXT });
    if (grammar?.syntax === 'regex') {
      const text = textMatching(grammar.definition, '', [FREE_TEXT, file]);
      if (text !== undefined) return text;
    }
  } catch {
    // Falls through to free text.
  }
  return `${FREE_TEXT}: ${turn.request.slice(0, 120)}`;
}
