import { InvalidRequestError } from '../errors.ts';

/** What the `model` parameter asks for, before any catalog lookup. See docs/model-parameter.md. */
export type ModelReference =
  | { kind: 'model'; model: string; provider?: string; agentId?: string }
  | { kind: 'deployment'; deploymentId: string; agentId?: string };

const DEPLOYMENT = /^(?:switchyard\/)?deployment\/(.+)$/;
const LEGACY_DEPLOYMENT = /^([^/]+)\/#(\d+)\/(production|staging|dev|prod|development)$/;

/**
 * Parses the `model` grammar:
 * - `switchyard/deployment/<id>` (or `deployment/<id>`): a stored deployment;
 * - `<provider>/<model>`: a model served only by that provider, catalogued or not (provider names are reserved);
 * - `<agent_id>/<model>` and `<agent_id>/<provider>/<model>`: sets the agent when `metadata.agent_id` is absent;
 * - anything else: a catalog id, alias or synonym.
 */
export function parseModelReference(model: string, providers: ReadonlySet<string>): ModelReference {
  const deployment = DEPLOYMENT.exec(model);
  if (deployment) return { kind: 'deployment', deploymentId: deployment[1]! };

  const legacy = LEGACY_DEPLOYMENT.exec(model);
  if (legacy) {
    throw new InvalidRequestError(
      `"${model}" is the legacy deployment form, which is no longer accepted. Use ` +
        `"${convertLegacyDeploymentReference(model)}".`,
      'model',
      'legacy_deployment_reference',
    );
  }

  const slash = model.indexOf('/');
  if (slash === -1) return { kind: 'model', model };
  const head = model.slice(0, slash);
  const rest = model.slice(slash + 1);
  if (head === '' || rest === '') throw new InvalidRequestError(`"${model}" is not a valid model reference.`, 'model');
  // After a provider, everything is the model's name: slashes and colons included (`openrouter/meta-llama/…`).
  if (providers.has(head)) return { kind: 'model', model: rest, provider: head };
  if (head === 'switchyard') {
    throw new InvalidRequestError(
      `"${model}": the "switchyard/" prefix is reserved for "switchyard/deployment/<id>".`,
      'model',
    );
  }
  const inner = parseModelReference(rest, providers);
  if (inner.agentId !== undefined) {
    throw new InvalidRequestError(
      `"${model}" has too many segments. Accepted forms: <model>, <provider>/<model>, <agent_id>/<model>, ` +
        '<agent_id>/<provider>/<model>, switchyard/deployment/<id>.',
      'model',
    );
  }
  return { ...inner, agentId: head };
}

/**
 * Converts the legacy `<agent_id>/#<number>/<environment>` form to
 * `switchyard/deployment/<agent_id>:<environment>#<number>`.
 * Returns `undefined` when the string is not in the legacy form.
 */
export function convertLegacyDeploymentReference(model: string): string | undefined {
  const match = LEGACY_DEPLOYMENT.exec(model);
  if (!match) return undefined;
  const environment = { prod: 'production', development: 'dev' }[match[3]!] ?? match[3]!;
  return `switchyard/deployment/${match[1]}:${environment}#${match[2]}`;
}
