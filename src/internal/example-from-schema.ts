type Schema = Record<string, any>;

const FORMAT_EXAMPLES: Record<string, string> = {
  'date-time': '2026-01-01T00:00:00Z',
  date: '2026-01-01',
  time: '00:00:00Z',
  duration: 'P1D',
  email: 'user@example.com',
  hostname: 'example.com',
  uri: 'https://example.com',
  url: 'https://example.com',
  uuid: '00000000-0000-4000-8000-000000000000',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
};

/**
 * A deterministic instance of a JSON Schema, preferring `const`, `examples`, `default` and `enum` values, then the
 * smallest value that meets the constraints. Used by the simulator to answer schema-constrained requests.
 */
export function exampleFromSchema(schema: Schema, root: Schema = schema, depth = 0): unknown {
  if (depth > 12 || typeof schema !== 'object' || schema === null) return null;
  if (typeof schema.$ref === 'string') return exampleFromSchema(resolveRef(schema.$ref, root), root, depth + 1);
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if ('default' in schema) return schema.default;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  const options = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(options) && options.length > 0) return exampleFromSchema(options[0], root, depth + 1);
  if (Array.isArray(schema.allOf)) {
    const merged: Schema = { ...schema, allOf: undefined };
    for (const part of schema.allOf) {
      const resolved = part.$ref ? resolveRef(part.$ref, root) : part;
      merged.type ??= resolved.type;
      merged.properties = { ...merged.properties, ...resolved.properties };
      merged.required = [...(merged.required ?? []), ...(resolved.required ?? [])];
    }
    delete merged.allOf;
    return exampleFromSchema(merged, root, depth + 1);
  }
  const type = Array.isArray(schema.type) ? schema.type.find((candidate: string) => candidate !== 'null') ?? 'null' : schema.type;
  switch (type ?? (schema.properties ? 'object' : schema.items ? 'array' : 'string')) {
    case 'object': {
      const result: Record<string, unknown> = {};
      for (const [key, property] of Object.entries<Schema>(schema.properties ?? {})) {
        result[key] = exampleFromSchema(property, root, depth + 1);
      }
      return result;
    }
    case 'array': {
      const count = Math.max(schema.minItems ?? 1, 1);
      const capped = schema.maxItems !== undefined ? Math.min(count, schema.maxItems) : count;
      return Array.from({ length: capped }, () => exampleFromSchema(schema.items ?? {}, root, depth + 1));
    }
    case 'integer':
    case 'number': {
      let value = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 0);
      if (schema.maximum !== undefined) value = Math.min(value, schema.maximum);
      return type === 'integer' ? Math.ceil(value) : value;
    }
    case 'boolean':
      return true;
    case 'null':
      return null;
    default: {
      if (typeof schema.format === 'string' && FORMAT_EXAMPLES[schema.format]) return FORMAT_EXAMPLES[schema.format];
      const text = 'example';
      const min = schema.minLength ?? 0;
      return text.padEnd(min, 'x').slice(0, schema.maxLength ?? Infinity);
    }
  }
}

function resolveRef(ref: string, root: Schema): Schema {
  if (!ref.startsWith('#')) return {};
  let node: any = root;
  for (const segment of ref.slice(1).split('/').filter(Boolean)) node = node?.[decodeURIComponent(segment.replace(/~1/g, '/').replace(/~0/g, '~'))];
  return node ?? {};
}
