/** A tool's answer as MCP clients read it: the value as indented JSON text. */
export function asJson(value: unknown): { content: Array<{ type: 'text'; text: string }> } {
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }] };
}
