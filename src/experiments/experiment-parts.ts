import { createHash } from 'node:crypto';
import { outputResponseFormat } from '../deployments/resolve-deployment.ts';
import type { DeploymentStore } from '../deployments/store.ts';
import { validateDeployment } from '../deployments/validate-deployment.ts';
import { InvalidRequestError } from '../errors.ts';
import { canonicalJson } from '../internal/canonical-json.ts';
import { uuidv7 } from '../records/uuidv7.ts';
import { renderMessages } from '../templates.ts';
import type { CompletionRequest } from '../types.ts';
import {
  type ExperimentHeader,
  type ExperimentInput,
  type ExperimentInputInput,
  type ExperimentVersion,
  type ExperimentVersionInput,
  MAX_INPUT_BYTES,
  MAX_INPUTS,
  type VersionContent,
} from './experiment.ts';
import { type CopiedInput, type InputSource, jsonBytes, sampleBudget, sampledInputs } from './sample-calls.ts';

/** SHA-256 of canonical JSON: equal content, equal key, whatever the key order. */
export function contentKey(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

/**
 * Versions as written → as stored: a deployment (of this agent only) is read and pinned, overrides laid on top,
 * and the result checked as a deployment's version is (a 400 naming `versions.<n>`).
 */
export async function resolveVersions(
  header: ExperimentHeader,
  written: ExperimentVersionInput[],
  deployments: DeploymentStore | undefined,
): Promise<ExperimentVersion[]> {
  const createdAt = new Date().toISOString();
  const versions: ExperimentVersion[] = [];
  for (const [index, version] of written.entries()) {
    const where = `versions.${index}`;
    const { label, deploymentId, content } = await contentOf(header.agent_id, version, deployments, where);
    checkContent(header.agent_id, content, where);
    versions.push({
      id: `ver_${uuidv7()}`,
      label: label ?? deploymentId ?? content.model,
      deployment_id: deploymentId,
      content,
      key: contentKey(content),
      created_at: createdAt,
    });
  }
  return versions;
}

async function contentOf(
  agentId: string,
  version: ExperimentVersionInput,
  deployments: DeploymentStore | undefined,
  where: string,
): Promise<{ label: string | undefined; deploymentId: string | null; content: VersionContent }> {
  if (!('deployment_id' in version) && !('environment' in version)) {
    const { label, ...content } = version;
    return { label, deploymentId: null, content };
  }
  if (!deployments)
    throw new InvalidRequestError(`${where}: this gateway has no deployment store to read versions from.`, where);
  const deployment =
    'deployment_id' in version
      ? await deployments.get(version.deployment_id)
      : newest(await deployments.list({ agent_id: agentId }), version.environment);
  // Another agent's deployment answers as one that does not exist.
  if (!deployment || deployment.agent_id !== agentId) {
    const named = 'deployment_id' in version ? `"${version.deployment_id}"` : `in ${version.environment}`;
    throw new InvalidRequestError(`${where}: agent "${agentId}" has no deployment ${named}.`, where);
  }
  const content = { ...deployment.version, ...version.overrides } as VersionContent;
  return { label: version.label, deploymentId: deployment.id, content };
}

function newest<Row extends { environment: string; number: number }>(rows: Row[], environment: string) {
  return rows.filter((row) => row.environment === environment).sort((a, b) => b.number - a.number)[0];
}

const EPOCH = '1970-01-01T00:00:00Z';

/** The deployment checks (model, messages, settings by their parameter rows, output schema), named by `where`. */
function checkContent(agentId: string, content: VersionContent, where: string): void {
  validateDeployment(
    { id: 'experiment', agent_id: agentId, environment: 'dev', number: 0, version: content, created_at: EPOCH },
    where,
    400,
  );
}

/**
 * Inputs as written → as stored: recorded calls are read now and their inputs copied (duplicates dropped). Each
 * input at most `MAX_INPUT_BYTES`; the samples of one request read at most `SAMPLE_READ_BYTES` in all; more than
 * `room` inputs is a 400, as soon as one too many is made.
 */
export async function resolveInputs(
  header: ExperimentHeader,
  written: ExperimentInputInput[],
  source: InputSource,
  room: number,
): Promise<ExperimentInput[]> {
  const createdAt = new Date().toISOString();
  const inputs: ExperimentInput[] = [];
  const seen = new Set<string>();
  const keyOf = (input: CopiedInput) => contentKey({ variables: input.variables, messages: input.messages });
  const add = (input: Omit<ExperimentInput, 'id' | 'key' | 'created_at'>) => {
    const key = keyOf(input);
    if (seen.has(key)) return;
    seen.add(key);
    inputs.push({ id: `inp_${uuidv7()}`, ...input, key, created_at: createdAt });
    if (inputs.length > room)
      throw new InvalidRequestError(
        `inputs: these give more than the ${room} inputs the experiment has room for (at most ${MAX_INPUTS} an ` +
          'experiment); sample fewer calls (from_calls.limit) or give fewer inputs.',
        'inputs',
        'too_many_inputs',
      );
  };
  const budget = sampleBudget();
  for (const [index, input] of written.entries()) {
    if (!('from_calls' in input)) {
      if (input.variables === undefined && (input.messages ?? []).length === 0)
        throw new InvalidRequestError(`inputs.${index}: give variables, messages or both.`, `inputs.${index}`);
      const given = { variables: input.variables ?? null, messages: input.messages ?? [] };
      const bytes = jsonBytes(given);
      if (bytes > MAX_INPUT_BYTES)
        throw new InvalidRequestError(
          `inputs.${index}: its variables and messages are ${bytes} bytes of JSON; an input holds at most ` +
            `${MAX_INPUT_BYTES}.`,
          `inputs.${index}`,
        );
      add({ label: input.label ?? null, ...given, source_call_id: null });
      continue;
    }
    const distinct = (copied: CopiedInput) => !seen.has(keyOf(copied));
    for (const { callId, copied } of await sampledInputs(header, input.from_calls, source, budget, distinct))
      add({ label: null, ...copied, source_call_id: callId });
  }
  return inputs;
}

/**
 * The request one cell sends: the version's settings, its prompt filled with the input's variables, the input's
 * messages after it (not templated: they are a caller's text), the output schema as `response_format`.
 */
export function cellRequest(
  header: ExperimentHeader,
  version: ExperimentVersion,
  input: ExperimentInput,
  cellId: string,
): CompletionRequest {
  const { model, messages, output_schema: outputSchema, ...settings } = version.content;
  const metadata = { agent_id: header.agent_id, experiment_id: header.id, experiment_cell_id: cellId };
  const request: Record<string, unknown> = { ...settings, model, metadata };
  if (input.messages.length === 0) {
    // The variables go as `input`, so that the call's record keeps them (and can feed another experiment).
    request.messages = messages;
    if (input.variables) request.input = input.variables;
  } else {
    request.messages = [...renderMessages(messages, input.variables ?? {}), ...input.messages];
  }
  if (outputSchema) request.response_format = outputResponseFormat(header.agent_id, outputSchema.json_schema);
  return request as unknown as CompletionRequest;
}
