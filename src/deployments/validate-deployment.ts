import type * as Zod from 'zod';
import { InvalidRequestError } from '../errors.ts';
import { zod } from '../internal/load-zod.ts';
import { type ParameterTable, REQUEST_PARAMETERS, type RequestParameter } from '../request/request-parameters.ts';
import { assertSchemaLimits } from '../structured-output/schema-limits.ts';
import { DEPLOYMENT_ENVIRONMENTS, type Deployment, idCharacterProblem, parseDeploymentId } from './deployment.ts';
import { type DeploymentIssue, DeploymentValidationError } from './errors.ts';

/**
 * A deployment record checked against its schema, with every issue named by path. The record's own fields (ids,
 * model, the templated messages, the output schema) have a zod schema here; its settings are the request parameters
 * the parameter table marks `deployable`, each checked by its row's own check, as a request's would be.
 */

/**
 * The record's zod schema with `settings` as fields of the version (checked by `settingIssues`), built on the first
 * validation: zod takes ~90 ms to load, and most programs never need it.
 */
function buildDeploymentSchema(settings: readonly string[]) {
  const z = zod();
  const text = z.strictObject({ type: z.literal('text'), text: z.string() });
  const refusal = z.strictObject({ type: z.literal('refusal'), refusal: z.string() });
  const imageUrl = z.strictObject({
    type: z.literal('image_url'),
    image_url: z.strictObject({ url: z.string().min(1), detail: z.enum(['auto', 'low', 'high']).optional() }),
  });
  const inputAudio = z.strictObject({
    type: z.literal('input_audio'),
    input_audio: z.strictObject({ data: z.string(), format: z.enum(['wav', 'mp3']) }),
  });
  const file = z.strictObject({
    type: z.literal('file'),
    file: z.strictObject({
      file_data: z.string().optional(),
      file_id: z.string().optional(),
      filename: z.string().optional(),
    }),
  });
  const textContent = z.union([z.string(), z.array(text)], { error: 'must be a string or an array of text parts' });
  const toolCall = z.strictObject({
    id: z.string().min(1),
    type: z.literal('function'),
    function: z.strictObject({ name: z.string().min(1), arguments: z.string() }),
  });

  const message = z.discriminatedUnion('role', [
    z.strictObject({ role: z.literal('system'), content: textContent, name: z.string().optional() }),
    z.strictObject({ role: z.literal('developer'), content: textContent, name: z.string().optional() }),
    z.strictObject({
      role: z.literal('user'),
      content: z.union([z.string(), z.array(z.discriminatedUnion('type', [text, imageUrl, inputAudio, file]))], {
        error: 'must be a string or an array of content parts (text, image_url, input_audio, file)',
      }),
      name: z.string().optional(),
    }),
    z
      .strictObject({
        role: z.literal('assistant'),
        content: z
          .union([z.string(), z.array(z.discriminatedUnion('type', [text, refusal]))], {
            error: 'must be a string, an array of text parts or null',
          })
          .nullable()
          .optional(),
        name: z.string().optional(),
        refusal: z.string().nullable().optional(),
        tool_calls: z.array(toolCall).optional(),
      })
      .refine((value) => value.content != null || (value.tool_calls?.length ?? 0) > 0 || value.refusal != null, {
        message: 'an assistant message needs "content" or "tool_calls"',
        path: ['content'],
      }),
    z.strictObject({ role: z.literal('tool'), content: textContent, tool_call_id: z.string().min(1) }),
  ]);

  const version = z.strictObject({
    model: z.string().min(1),
    messages: z.array(message),
    output_schema: z
      .strictObject({
        json_schema: z.looseObject({
          type: z.literal('object', { error: 'the root of the output schema must be { "type": "object" }' }),
        }),
      })
      .optional(),
    ...Object.fromEntries(settings.map((name) => [name, z.unknown().optional()])),
  });

  return z
    .strictObject({
      id: z.string().min(1).superRefine(characterRule),
      agent_id: z
        .string()
        .min(1)
        .regex(/^[^\s/]+$/, 'must not contain whitespace or "/"')
        // Whitespace is the regex's to report.
        .superRefine((value, context) => void (/\s/.test(value) || characterRule(value, context))),
      environment: z.enum(DEPLOYMENT_ENVIRONMENTS),
      number: z.int().min(0),
      version,
      created_at: z.iso.datetime({
        offset: true,
        error: 'must be an ISO 8601 date-time such as "2025-10-01T12:00:00Z"',
      }),
      description: z.string().optional(),
      metadata: z.record(z.string(), z.string()).optional(),
    })
    .superRefine((value, context) => {
      const parsed = parseDeploymentId(value.id);
      if (!parsed) return;
      for (const key of ['agent_id', 'environment', 'number'] as const) {
        if (parsed[key] !== value[key]) {
          context.addIssue({
            code: 'custom',
            path: ['id'],
            message:
              `"${value.id}" says ${key} ${JSON.stringify(parsed[key])}, but the record's ${key} is ` +
              `${JSON.stringify(value[key])}`,
          });
        }
      }
    });
}

/** Ids and agent ids: no whitespace, control or bidirectional formatting characters (`idCharacterProblem`). */
function characterRule(value: string, context: Zod.core.$RefinementCtx<string>): void {
  const problem = idCharacterProblem(value);
  if (problem) context.addIssue({ code: 'custom', message: problem });
}

/**
 * The deployment check of a parameter table: the record's schema, with the table's `deployable` rows as settings.
 * `validateDeployment` is the one of `REQUEST_PARAMETERS`.
 */
export function deploymentValidator(
  table: ParameterTable,
): (value: unknown, source: string, status?: number) => Deployment {
  const settings = Object.entries(table).filter(([, row]) => row.deployable);
  let schema: ReturnType<typeof buildDeploymentSchema> | undefined;
  return (value, source, status) => {
    // Measured before parsing: a schema thousands of levels deep must not reach zod's recursion or ajv's compiler.
    const tooBig = schemaLimitIssue(value);
    if (tooBig) throw new DeploymentValidationError(source, [tooBig], status);
    schema ??= buildDeploymentSchema(settings.map(([name]) => name));
    const result = schema.safeParse(value);
    const issues = result.success ? [] : result.error.issues.flatMap(toIssues);
    issues.push(...settingIssues(value, settings));
    if (result.success && issues.length === 0) return result.data as Deployment;
    throw new DeploymentValidationError(source, issues, status);
  };
}

/**
 * Checks an unknown value (a parsed file, a remote answer, a `put` argument) and returns it as a `Deployment`.
 * Unknown fields are rejected. Throws `DeploymentValidationError` naming `source` and every faulty field.
 */
export const validateDeployment = deploymentValidator(REQUEST_PARAMETERS);

/** The version's settings checked by their rows, as a request's are: `null` is refused, since nothing unsets it. */
function settingIssues(value: unknown, settings: ReadonlyArray<[string, RequestParameter]>): DeploymentIssue[] {
  const version = (value as { version?: unknown } | null)?.version;
  if (typeof version !== 'object' || version === null || Array.isArray(version)) return [];
  const fields = version as Record<string, unknown>;
  const issues: DeploymentIssue[] = [];
  for (const [name, row] of settings) {
    const setting = fields[name];
    if (setting === undefined) continue;
    if (setting === null) {
      issues.push({ path: `version.${name}`, message: 'must not be null (leave the field out)' });
      continue;
    }
    try {
      row.check?.(setting, fields);
    } catch (error) {
      if (!(error instanceof InvalidRequestError)) throw error;
      issues.push({ path: `version.${error.param ?? name}`, message: error.message });
    }
  }
  if (fields.output_schema !== undefined && fields.response_format != null)
    issues.push({
      path: 'version.response_format',
      message: 'a version has "output_schema" or "response_format", not both',
    });
  return issues;
}

/** The first schema of a deployment (output schema, tool parameters) over the size limits, as an issue. */
function schemaLimitIssue(value: unknown): DeploymentIssue | undefined {
  const version = (value as { version?: { output_schema?: { json_schema?: unknown }; tools?: unknown } } | null)
    ?.version;
  if (typeof version !== 'object' || version === null) return undefined;
  const schemas: Array<[string, unknown]> = [['version.output_schema.json_schema', version.output_schema?.json_schema]];
  if (Array.isArray(version.tools)) {
    version.tools.forEach((tool: { function?: { parameters?: unknown } } | null, index) => {
      schemas.push([`version.tools[${index}].function.parameters`, tool?.function?.parameters]);
    });
  }
  for (const [path, schema] of schemas) {
    try {
      assertSchemaLimits(schema, path);
    } catch (error) {
      return { path, message: (error as Error).message };
    }
  }
  return undefined;
}

function toIssues(issue: Zod.core.$ZodIssue): DeploymentIssue[] {
  if (issue.code === 'invalid_union' && issue.errors.length > 0) {
    // Report the alternative that got furthest into the value (an array whose third part is wrong), if any did.
    const depth = (branch: Zod.core.$ZodIssue[]): number => Math.max(...branch.map((inner) => inner.path.length));
    const deepest = issue.errors.reduce((best, branch) => (depth(branch) > depth(best) ? branch : best));
    if (depth(deepest) > 0)
      return deepest.flatMap((inner) => toIssues({ ...inner, path: [...issue.path, ...inner.path] }));
  }
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({ path: formatPath([...issue.path, key]), message: 'unknown field' }));
  }
  return [{ path: formatPath(issue.path), message: issue.message }];
}

/** `['version', 'messages', 0, 'role']` → `version.messages[0].role`. */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let result = '';
  for (const key of path) {
    if (typeof key === 'number') result += `[${key}]`;
    else if (typeof key === 'string' && /^[A-Za-z_$][\w$]*$/.test(key)) result += result ? `.${key}` : key;
    else result += `[${JSON.stringify(String(key))}]`;
  }
  return result;
}
