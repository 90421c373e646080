type Schema = Record<string, any>;

/**
 * What a model constrained by OpenAI's strict form would send for `value` under `sent` (the strict schema): every
 * property an object's schema lists present (null when the value leaves it out), and names it does not list left
 * out — counted in `undeclared`, since strict form cannot express them.
 */
export function strictFormOf(value: unknown, sent: Schema): { value: unknown; undeclared: number } {
  const counter = { undeclared: 0 };
  return { value: project(value, sent, sent, counter, 0), undeclared: counter.undeclared };
}

function project(value: unknown, node: unknown, root: Schema, counter: { undeclared: number }, depth: number): unknown {
  if (depth > 64 || typeof node !== 'object' || node === null) return value;
  const schema = resolve(node as Schema, root);
  const branches = [schema, ...((schema.anyOf as Schema[] | undefined) ?? [])].map((branch) => resolve(branch, root));
  if (Array.isArray(value)) {
    const items = branches.find((candidate) => candidate.items)?.items;
    return value.map((item) => project(item, items, root, counter, depth + 1));
  }
  if (typeof value !== 'object' || value === null) return value;
  // The object branch that names most of the value's keys.
  const objects = branches.filter((candidate) => typeof candidate.properties === 'object');
  const known = (candidate: Schema) =>
    Object.keys(value).filter((key) => Object.hasOwn(candidate.properties, key)).length;
  const branch = objects.sort((a, b) => known(b) - known(a))[0];
  if (!branch) return value;
  const properties = branch.properties as Schema;
  counter.undeclared += Object.keys(value).filter((key) => !Object.hasOwn(properties, key)).length;
  const result: Record<string, unknown> = {};
  for (const key of Object.keys(properties)) {
    const item = Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : null;
    Object.defineProperty(result, key, {
      value: item === null ? null : project(item, properties[key], root, counter, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return result;
}

function resolve(schema: Schema, root: Schema): Schema {
  let current = schema;
  for (let hops = 0; typeof current?.$ref === 'string' && current.$ref.startsWith('#') && hops < 32; hops++) {
    let target: any = root;
    for (const segment of current.$ref.slice(2).split('/').filter(Boolean))
      target = target?.[decodeURIComponent(segment).replaceAll('~1', '/').replaceAll('~0', '~')];
    current = target ?? {};
  }
  return current ?? {};
}
