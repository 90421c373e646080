import type * as Zod from 'zod';
import { lazyRequire } from '../internal/lazy-require.ts';
import { assertSchemaLimits } from '../structured-output/schema-limits.ts';
import { DEPLOYMENT_ENVIRONMENTS, type Deployment, idCharacterProblem, parseDeploymentId } from './deployment.ts';
import { type DeploymentIssue, DeploymentValidationError } from './errors.ts';

/** A deployment record checked against its schema, with every issue named by path. */

const loadZod = lazyRequire<typeof Zod>('zod');

let deploymentSchema: ReturnType<typeof buildDeploymentSchema> | undefined;

/** The record's zod schema, built on the first validation (zod takes ~90 ms to load; most programs never need it). */
function buildDeploymentSchema() {
  const z = loadZod();
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

  const toolName = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, '1–64 letters, digits, "_" or "-"');
  const tool = z.strictObject({
    type: z.literal('function'),
    function: z.strictObject({
      name: toolName,
      description: z.string().optional(),
      parameters: z.record(z.string(), z.unknown()).optional(),
      strict: z.boolean().nullable().optional(),
    }),
  });
  const toolChoice = z.union(
    [
      z.enum(['none', 'auto', 'required']),
      z.strictObject({ type: z.literal('function'), function: z.strictObject({ name: toolName }) }),
    ],
    { error: 'must be "none", "auto", "required" or { "type": "function", "function": { "name": … } }' },
  );

  const reasoning = z
    .strictObject({
      budget: z.int().min(0).optional(),
      effort: z.enum(['disabled', 'low', 'medium', 'high']).optional(),
    })
    .refine((value) => (value.budget === undefined) !== (value.effort === undefined), {
      message: 'give exactly one of "budget" (tokens) or "effort" (disabled, low, medium, high)',
    });

  const version = z
    .strictObject({
      model: z.string().min(1),
      messages: z.array(message),
      output_schema: z
        .strictObject({
          json_schema: z.looseObject({
            type: z.literal('object', { error: 'the root of the output schema must be { "type": "object" }' }),
          }),
        })
        .optional(),
      temperature: z.number().min(0).max(2).optional(),
      top_p: z.number().min(0).max(1).optional(),
      max_tokens: z.int().min(1).optional(),
      max_completion_tokens: z.int().min(1).optional(),
      presence_penalty: z.number().min(-2).max(2).optional(),
      frequency_penalty: z.number().min(-2).max(2).optional(),
      seed: z.int().optional(),
      n: z.int().min(1).max(128).optional(),
      stop: z.union([z.string(), z.array(z.string())], { error: 'must be a string or an array of strings' }).optional(),
      logit_bias: z.record(z.string(), z.number()).optional(),
      logprobs: z.boolean().optional(),
      top_logprobs: z.int().min(0).max(20).optional(),
      reasoning: reasoning.optional(),
      reasoning_effort: z.enum(['low', 'medium', 'high']).optional(),
      verbosity: z.enum(['low', 'medium', 'high']).optional(),
      tools: z.array(tool).optional(),
      tool_choice: toolChoice.optional(),
      parallel_tool_calls: z.boolean().optional(),
      service_tier: z.string().optional(),
      fallbacks: z.array(z.string().min(1)).optional(),
      structured_output_fallback: z.string().min(1).optional(),
    })
    .superRefine((value, context) => {
      const choice = value.tool_choice;
      if (
        typeof choice === 'object' &&
        !value.tools?.some((candidate) => candidate.function.name === choice.function.name)
      ) {
        context.addIssue({
          code: 'custom',
          path: ['tool_choice'],
          message: `names the tool "${choice.function.name}", which is not in "tools"`,
        });
      }
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
 * Checks an unknown value (a parsed file, a remote answer, a `put` argument) and returns it as a `Deployment`.
 * Unknown fields are rejected. Throws `DeploymentValidationError` naming `source` and every faulty field.
 */
export function validateDeployment(value: unknown, source: string, status?: number): Deployment {
  // Measured before parsing: a schema thousands of levels deep must not reach zod's recursion or ajv's compiler.
  const tooBig = schemaLimitIssue(value);
  if (tooBig) throw new DeploymentValidationError(source, [tooBig], status);
  deploymentSchema ??= buildDeploymentSchema();
  const result = deploymentSchema.safeParse(value);
  if (result.success) return result.data as Deployment;
  throw new DeploymentValidationError(source, result.error.issues.flatMap(toIssues), status);
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
