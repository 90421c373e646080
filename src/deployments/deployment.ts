import { hasUnsafeCharacters, UNSAFE_CHARACTERS_RULE } from '../internal/unsafe-text.ts';
import type { DeployableSettings } from '../request/request-parameters.ts';
import type { ChatCompletionMessageParam } from '../types.ts';

export const DEPLOYMENT_ENVIRONMENTS = ['production', 'staging', 'dev'] as const;

export type DeploymentEnvironment = (typeof DEPLOYMENT_ENVIRONMENTS)[number];

/** A JSON Schema whose root is `{ "type": "object", … }`. */
export type JsonSchemaObject = { type: 'object' } & Record<string, unknown>;

/**
 * What a deployment pins: the model, the templated prompt, the output schema, and any request parameter the
 * parameter table marks `deployable` (`REQUEST_PARAMETERS` in src/request/request-parameters.ts).
 */
export interface DeploymentVersion extends DeployableSettings {
  model: string;
  /** OpenAI messages whose text may hold `{{name}}` variables, filled from the caller's `input`. */
  messages: ChatCompletionMessageParam[];
  output_schema?: { json_schema: JsonSchemaObject };
}

/** A stored, immutable agent version, called as `model: "switchyard/deployment/<id>"`. */
export interface Deployment {
  /** Unique across agents. Recommended shape: `<agent_id>:<environment>#<number>` (see `formatDeploymentId`). */
  id: string;
  agent_id: string;
  environment: DeploymentEnvironment;
  number: number;
  version: DeploymentVersion;
  /** ISO 8601 date-time with an offset, such as `2025-10-01T12:00:00Z`. */
  created_at: string;
  description?: string;
  metadata?: Record<string, string>;
}

// ---- ids ----

/** The longest deployment or agent id: far past any real one, short enough for a URL's path. */
const MAX_ID_LENGTH = 512;

/**
 * Why a string cannot be a deployment id or an agent id, or `undefined`. Ids are shown in tables, logs, pages and
 * messages: whitespace would split them, control and bidirectional formatting characters could rewrite what a
 * terminal or a reader shows; a length past 512 characters, no store's key or URL would carry.
 */
export function idCharacterProblem(id: string): string | undefined {
  if (id.length > MAX_ID_LENGTH) return `is longer than ${MAX_ID_LENGTH} characters`;
  if (/\s/.test(id)) return 'must not contain whitespace';
  if (hasUnsafeCharacters(id)) return `must not contain ${UNSAFE_CHARACTERS_RULE}`;
  return undefined;
}

const RECOMMENDED_ID = /^([^\s#]+):(production|staging|dev)#(0|[1-9]\d*)$/;

/** `<agent_id>:<environment>#<number>`, the recommended id shape. */
export function formatDeploymentId(parts: {
  agent_id: string;
  environment: DeploymentEnvironment;
  number: number;
}): string {
  return `${parts.agent_id}:${parts.environment}#${parts.number}`;
}

/**
 * Reads an id of the recommended shape; `undefined` for any other shape (such ids are still valid, and then the
 * record's own `agent_id`, `environment` and `number` are what count).
 */
export function parseDeploymentId(
  id: string,
): { agent_id: string; environment: DeploymentEnvironment; number: number } | undefined {
  const match = RECOMMENDED_ID.exec(id);
  if (!match) return undefined;
  const number = Number(match[3]);
  if (!Number.isSafeInteger(number)) return undefined;
  return { agent_id: match[1]!, environment: match[2] as DeploymentEnvironment, number };
}

// ---- schema ----

/** Whether two records hold the same content, whatever the key order. */
export function sameDeployment(a: Deployment, b: Deployment): boolean {
  return canonicalJSON(a) === canonicalJSON(b);
}

function canonicalJSON(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJSON).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, entry]) => entry !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, entry]) => `${JSON.stringify(key)}:${canonicalJSON(entry)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
