import { InvalidRequestError } from '../errors.ts';
import { escapeUnsafeCharacters } from '../internal/unsafe-text.ts';
import { type RenderOptions, renderMessages } from '../templates.ts';
import type { ChatCompletionMessageParam, CompletionRequestBase } from '../types.ts';
import { type Deployment, idCharacterProblem, type JsonSchemaObject, parseDeploymentId } from './deployment.ts';
import { DeploymentNotFoundError } from './errors.ts';
import type { DeploymentStore, LookupOptions } from './store.ts';

/** The parts of a completion request that matter to a deployment call (`model` is the deployment reference). */
export type DeploymentCallRequest = Omit<CompletionRequestBase, 'model'> & { model?: string; stream?: boolean | null };

/** Every request parameter other than these four. */
type DeploymentSettings = Omit<DeploymentCallRequest, 'model' | 'messages' | 'input' | 'metadata'>;

export interface ResolvedDeployment {
  deployment: Deployment;
  /** The deployment's agent: it wins over `metadata.agent_id` and any model prefix. */
  agentId: string;
  /** The catalog model the deployment pins. */
  model: string;
  /** The stored prompt rendered with `input`, then the caller's own messages (not rendered). */
  messages: ChatCompletionMessageParam[];
  /**
   * The stored settings with the caller's parameters on top (a `null` from the caller removes the stored value),
   * plus `response_format` built from the output schema unless the caller sent one. Never holds model, messages,
   * input or metadata.
   */
  settings: DeploymentSettings;
  /** The deployment's stored output schema, if any (whether or not the caller's `response_format` replaced it). */
  outputSchema: JsonSchemaObject | undefined;
}

/** Request fields that are not settings. */
const NOT_SETTINGS = new Set(['model', 'messages', 'input', 'metadata']);

/** A caller's value for the key replaces these stored settings, so that the two never disagree. */
const REPLACES: Record<string, string[]> = {
  reasoning: ['reasoning', 'reasoning_effort'],
  reasoning_effort: ['reasoning', 'reasoning_effort'],
  max_tokens: ['max_tokens', 'max_completion_tokens'],
  max_completion_tokens: ['max_tokens', 'max_completion_tokens'],
  tools: ['tools', 'tool_choice'],
};

/**
 * Looks a deployment up and turns it and the caller's request into what the gateway sends: the pinned model, the
 * prompt rendered with `request.input`, the merged settings, the response format and the agent.
 * Throws `DeploymentNotFoundError` (404) for an unknown id, and the 400 `InvalidRequestError` of `renderTemplate`
 * when the prompt uses a variable that `input` lacks or renders larger than `maxRenderedBytes`. `signal` ends the
 * store's lookup (a remote store's request) when it fires.
 */
export async function resolveDeployment(
  store: DeploymentStore,
  id: string,
  request: DeploymentCallRequest = {},
  options: RenderOptions &
    LookupOptions & {
      mayUseAgent?: (agentId: string) => boolean;
      /** Told the deployment once found and visible, before the rest can fail: a failed call is recorded as its. */
      found?: (deployment: Deployment) => void;
    } = {},
): Promise<ResolvedDeployment> {
  assertDeploymentId(id, 'model');
  const lookup = { signal: options.signal };
  const visible = options.mayUseAgent ?? (() => true);
  const deployment = await store.get(id, lookup);
  // Another agent's deployment answers as if it did not exist: a limited caller learns nothing of it.
  if (!deployment || !visible(deployment.agent_id)) {
    // Read either way (its time must not tell one from the other); nothing suggested for another agent's.
    const known = await knownIdsOfAgent(store, id, lookup);
    throw new DeploymentNotFoundError(id, deployment ? [] : known.filter((other) => visibleId(other, visible)));
  }
  options.found?.(deployment);

  const { model, messages: prompt, output_schema: outputSpec, ...stored } = deployment.version;
  const settings: Record<string, unknown> = { ...stored };
  for (const [key, value] of Object.entries(request)) {
    if (NOT_SETTINGS.has(key) || value === undefined) continue;
    for (const replaced of REPLACES[key] ?? [key]) delete settings[replaced];
    if (value !== null) settings[key] = value;
  }
  const outputSchema = outputSpec?.json_schema;
  // A caller's `null` removes the stored schema too: it is the stored response format.
  if (outputSchema && request.response_format !== null && settings.response_format === undefined) {
    settings.response_format = outputResponseFormat(deployment.agent_id, outputSchema);
  }

  const messages = [
    ...renderMessages(prompt, request.input, {
      label: `Deployment "${deployment.id}" `,
      maxRenderedBytes: options.maxRenderedBytes,
    }),
    ...(request.messages ?? []),
  ];
  if (messages.length === 0) {
    throw new InvalidRequestError(
      `Deployment "${deployment.id}" stores no prompt, so the request must send "messages".`,
      'messages',
    );
  }
  return {
    deployment,
    agentId: deployment.agent_id,
    model,
    messages,
    settings: settings as DeploymentSettings,
    outputSchema,
  };
}

/**
 * A 400 `invalid_deployment_id` for an id no deployment can have (`idCharacterProblem`), before any store is asked;
 * the message shows the id with such characters escaped.
 */
export function assertDeploymentId(id: string, param: string | null): void {
  const problem = idCharacterProblem(id);
  if (!problem) return;
  throw new InvalidRequestError(
    `The deployment id "${escapeUnsafeCharacters(id.length > 80 ? `${id.slice(0, 80)}…` : id)}" ${problem}.`,
    param,
    'invalid_deployment_id',
  );
}

/** Up to 5 ids of the agent an unknown id seems to belong to, newest first; none when that cannot be told. */
async function knownIdsOfAgent(store: DeploymentStore, id: string, lookup: LookupOptions): Promise<string[]> {
  const agentId = parseDeploymentId(id)?.agent_id ?? /^[^:@#/\s]+/.exec(id)?.[0];
  if (!agentId) return [];
  try {
    if (store.recentIds) return await store.recentIds(agentId, 5, lookup);
    return (await store.list({ agent_id: agentId }, lookup)).slice(0, 5).map((deployment) => deployment.id);
  } catch (error) {
    if (lookup.signal?.aborted) throw error;
    return []; // the suggestion is a courtesy: a store that cannot list must not hide the 404
  }
}

function visibleId(id: string, visible: (agentId: string) => boolean): boolean {
  const agentId = parseDeploymentId(id)?.agent_id;
  return agentId !== undefined && visible(agentId);
}

/** The `response_format` an agent's output schema becomes (deployments, experiment versions). */
export function outputResponseFormat(agentId: string, schema: JsonSchemaObject) {
  return { type: 'json_schema' as const, json_schema: { name: schemaName(agentId), schema } };
}

/** A `json_schema.name` (1–64 letters, digits, "_" or "-") from an agent id. */
function schemaName(agentId: string): string {
  return agentId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64) || 'output';
}
