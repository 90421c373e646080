import type { CustomTool, FunctionTool, NamespaceTool, Tool } from 'openai/resources/responses/responses';
import { sha256Hex } from '../../internal/sha256.ts';

/** A tool call's name as the client knows it: the tool's own name, and the namespace it is in, if any. */
export interface ClientToolName {
  name: string;
  namespace?: string;
}

/** Chat's limit on a tool's name (OpenAI's; the strictest of the providers). */
const MAX_NAME = 64;

/**
 * The name a tool of a namespace is sent under, since chat has no namespaces: `<namespace>__<tool>`; past 64
 * characters, its first 55 and 8 hex digits of its hash, so the same tool gets the same name on every turn.
 */
function flatToolName(namespace: string, name: string): string {
  const joined = `${namespace}__${name}`;
  if (joined.length <= MAX_NAME) return joined;
  const hash = sha256Hex(joined).slice(0, 8);
  return `${joined.slice(0, MAX_NAME - hash.length - 1)}_${hash}`;
}

/**
 * The tools of a namespace (a group of tools the client runs, such as Codex's MCP servers) as top-level tools with
 * flat names. The namespace's description goes before each tool's own. A namespaced function without `strict` is
 * not strict: OpenAI falls back to non-strict for a schema strict mode cannot take.
 */
export function flattenNamespace(namespace: NamespaceTool): Array<FunctionTool | CustomTool> {
  return namespace.tools.map((tool) => {
    const name = flatToolName(namespace.name, tool.name);
    const description = [namespace.description, tool.description].filter(Boolean).join('\n\n') || undefined;
    if (tool.type === 'custom') return { ...tool, name, ...(description ? { description } : {}) };
    return {
      type: 'function',
      name,
      description: description ?? null,
      parameters: (tool.parameters ?? null) as FunctionTool['parameters'],
      strict: tool.strict === true,
    };
  });
}

/** The namespaced tools of a request, by the flat names the model calls them by. */
export function namespacedNames(tools: readonly Tool[] | undefined): Map<string, Required<ClientToolName>> {
  const names = new Map<string, Required<ClientToolName>>();
  for (const tool of tools ?? []) {
    if (tool.type !== 'namespace') continue;
    for (const inner of tool.tools)
      names.set(flatToolName(tool.name, inner.name), { namespace: tool.name, name: inner.name });
  }
  return names;
}

/** A called name as the client knows it: a namespaced tool's flat name back to its namespace and name. */
export function clientToolName(names: ReadonlyMap<string, Required<ClientToolName>>, called: string): ClientToolName {
  return names.get(called) ?? { name: called };
}

/** The name a call the client sends back went to the model under. */
export function sentToolName(call: { name: string; namespace?: string | null }): string {
  return call.namespace ? flatToolName(call.namespace, call.name) : call.name;
}
