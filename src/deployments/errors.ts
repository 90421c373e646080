import { brandErrorClasses } from '../error-brand.ts';
import { SwitchyardError } from '../errors.ts';

/** One problem found in a deployment record: the field path (`version.messages[0].role`) and what is wrong. */
export interface DeploymentIssue {
  path: string;
  message: string;
}

/** `model: "switchyard/deployment/<id>"` names no stored deployment. `knownIds` lists up to 5 ids of the same agent. */
export class DeploymentNotFoundError extends SwitchyardError {
  override name = 'DeploymentNotFoundError';
  readonly deploymentId: string;
  readonly knownIds: string[];
  constructor(deploymentId: string, knownIds: string[] = []) {
    const hint =
      knownIds.length > 0 ? ` Deployments of the same agent: ${knownIds.map((id) => `"${id}"`).join(', ')}.` : '';
    super(`No deployment has the id "${deploymentId}".${hint}`, {
      status: 404,
      type: 'invalid_request_error',
      code: 'deployment_not_found',
      param: 'model',
    });
    this.deploymentId = deploymentId;
    this.knownIds = knownIds;
  }
}

/** A stored version is immutable: `put` of an existing id with different content. */
export class DeploymentConflictError extends SwitchyardError {
  override name = 'DeploymentConflictError';
  readonly deploymentId: string;
  constructor(deploymentId: string, where: string) {
    super(
      `The deployment "${deploymentId}" already exists (${where}) with different content. A stored version is ` +
        `immutable: ` +
        'store the change under a new id, for example with the next deployment number.',
      { status: 409, type: 'invalid_request_error', code: 'deployment_conflict', param: null },
    );
    this.deploymentId = deploymentId;
  }
}

/**
 * A deployment record is malformed. The message names where it came from (a file, a URL, `put`) and each field:
 * `deployments/support.json: version.messages[0].role: …`.
 */
export class DeploymentValidationError extends SwitchyardError {
  override name = 'DeploymentValidationError';
  /** The file, URL or call the record came from. */
  readonly source: string;
  readonly issues: DeploymentIssue[];
  /** `status` is 400 for a record handed to `put`, 500 for a file, 502 for a remote answer. */
  constructor(source: string, issues: DeploymentIssue[], status = 500) {
    const lines = issues.map((issue) =>
      issue.path ? `${source}: ${issue.path}: ${issue.message}` : `${source}: ${issue.message}`,
    );
    super(lines.join('\n'), {
      status,
      type: status < 500 ? 'invalid_request_error' : 'api_error',
      code: 'invalid_deployment',
      param: null,
    });
    this.source = source;
    this.issues = issues;
  }
}

/** The status of a `DeploymentStoreError` by its code; any other code is a 500. */
const STATUS_BY_CODE: Record<string, number> = {
  deployment_store_unavailable: 503,
  response_too_large: 502,
  aborted: 499,
};

/**
 * A store could not answer: the remote is unreachable or refused, its answer was too large, the caller aborted,
 * a directory is missing, two files hold one id. Names the URL or path and the upstream status, never a credential.
 */
export class DeploymentStoreError extends SwitchyardError {
  override name = 'DeploymentStoreError';
  /** The URL or path the store was reading. */
  readonly location: string;
  /** The status the remote answered with, when it answered. */
  readonly upstreamStatus: number | undefined;
  constructor(message: string, options: { location: string; upstreamStatus?: number; code?: string; cause?: unknown }) {
    super(message, {
      status: STATUS_BY_CODE[options.code ?? ''] ?? 500,
      type: 'api_error',
      code: options.code ?? 'deployment_store_error',
      cause: options.cause,
    });
    this.location = options.location;
    this.upstreamStatus = options.upstreamStatus;
  }
}

brandErrorClasses({
  DeploymentNotFoundError,
  DeploymentConflictError,
  DeploymentValidationError,
  DeploymentStoreError,
});
