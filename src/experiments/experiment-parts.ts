import { createHash } from 'node:crypto';
import { canonicalJson } from '../cache/cache-key.ts';
import { outputResponseFormat } from '../deployments/resolve-deployment.ts';
import type { DeploymentStore } from '../deployments/store.ts';
import { validateDeployment } from '../deployments/validate-deployment.ts';
import { InvalidRequestError } from '../errors.ts';
import { type CallQueryScope, MAX_QUERY_LIMIT } from '../records/call-query.ts';
import type { CallRecord } from '../records/call-record.ts';
import type { CallStore } from '../records/call-store.ts';
import { uuidv7 } from '../records/uuidv7.ts';
import { renderMessages } from '../templates.ts';
import type { CompletionRequest } from '../types.ts';
import {
  DEFAULT_SAMPLE,
  type ExperimentHeader,
  type ExperimentInput,
  type ExperimentInputInput,
  type ExperimentVersion,
  type ExperimentVersionInput,
  type VersionContent,
} from './experiment.ts';

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

/** Where inputs are copied from: the call records, as far as the caller reads them. */
export interface InputSource {
  calls: CallStore;
  scope: () => Promise<CallQueryScope>;
  flush: () => Promise<void>;
}

/** Inputs as written → as stored: recorded calls are read now and their inputs copied (duplicates dropped). */
export async function resolveInputs(
  header: ExperimentHeader,
  written: ExperimentInputInput[],
  source: InputSource,
): Promise<ExperimentInput[]> {
  const createdAt = new Date().toISOString();
  const inputs: ExperimentInput[] = [];
  const seen = new Set<string>();
  const add = (input: Omit<ExperimentInput, 'id' | 'key' | 'created_at'>) => {
    const key = contentKey({ variables: input.variables, messages: input.messages });
    if (seen.has(key)) return;
    seen.add(key);
    inputs.push({ id: `inp_${uuidv7()}`, ...input, key, created_at: createdAt });
  };
  for (const [index, input] of written.entries()) {
    if (!('from_calls' in input)) {
      if (input.variables === undefined && (input.messages ?? []).length === 0)
        throw new InvalidRequestError(`inputs.${index}: give variables, messages or both.`, `inputs.${index}`);
      add({
        label: input.label ?? null,
        variables: input.variables ?? null,
        messages: input.messages ?? [],
        source_call_id: null,
      });
      continue;
    }
    for (const record of await sampledCalls(header, input.from_calls, source)) {
      const copied = inputOfCall(record);
      if (copied) add({ label: null, ...copied, source_call_id: record.id });
    }
  }
  return inputs;
}

/** The newest calls passing the filter (and the caller's scope), of the experiment's agent unless it says. */
async function sampledCalls(
  header: ExperimentHeader,
  sample: { filter?: Record<string, unknown>; limit?: number },
  source: InputSource,
): Promise<CallRecord[]> {
  const { calls } = source;
  if (!calls.queryCalls || !calls.get)
    throw new InvalidRequestError('inputs: this call store cannot be queried; give inputs directly.', 'inputs');
  await source.flush();
  const limit = sample.limit ?? DEFAULT_SAMPLE;
  const filter = { agent_id: header.agent_id, ...sample.filter };
  // Experiments' own calls are left out unless the filter asks for them (by `metadata.experiment_id`).
  const ownCallsToo = (sample.filter?.metadata as Record<string, string> | undefined)?.experiment_id !== undefined;
  // Newest first (the default order); rows are columns only, and records are read until the sample is full.
  const rows = await calls.queryCalls({ filter, limit: MAX_QUERY_LIMIT }, { scope: await source.scope() });
  const records: CallRecord[] = [];
  const keys = new Set<string>();
  for (const row of rows.data) {
    if (records.length === limit) break;
    const record = await calls.get(String(row.id));
    if (!record || (!ownCallsToo && record.metadata?.experiment_id !== undefined)) continue;
    const copied = inputOfCall(record);
    if (!copied) continue;
    const key = contentKey(copied);
    if (keys.has(key)) continue;
    keys.add(key);
    records.push(record);
  }
  return records;
}

/**
 * What a recorded call was asked: its `input` variables when it had them (a deployment's or a template's call);
 * otherwise its messages after the system and developer ones (a version brings its own instructions). A redacted
 * or empty call gives nothing.
 */
function inputOfCall(record: CallRecord): Pick<ExperimentInput, 'variables' | 'messages'> | undefined {
  const { input } = record;
  if (typeof input === 'object' && input !== null && !Array.isArray(input))
    return { variables: input as Record<string, unknown>, messages: [] };
  if (typeof input === 'string') return undefined;
  const messages = (record.input_messages ?? []).filter((m) => m.role !== 'system' && m.role !== 'developer');
  return messages.length > 0 ? { variables: null, messages } : undefined;
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
