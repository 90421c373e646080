/** JSON with every object's keys sorted and `undefined` members left out, so equal requests give equal text. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item)).join(',')}]`;
  const members: string[] = [];
  for (const name of Object.keys(value).sort()) {
    const member = (value as Record<string, unknown>)[name];
    if (member !== undefined) members.push(`${JSON.stringify(name)}:${canonicalJson(member)}`);
  }
  return `{${members.join(',')}}`;
}
