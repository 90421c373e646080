/** What a caller of deployments names, declared once: the main entry and this folder's index both export it. */
export { type CreateDeploymentStoreOptions, createDeploymentStore } from './create-store.ts';
export {
  DEPLOYMENT_ENVIRONMENTS,
  type Deployment,
  type DeploymentEnvironment,
  type DeploymentVersion,
  formatDeploymentId,
  type JsonSchemaObject,
  parseDeploymentId,
} from './deployment.ts';
export {
  DeploymentConflictError,
  type DeploymentIssue,
  DeploymentNotFoundError,
  DeploymentStoreError,
  DeploymentValidationError,
} from './errors.ts';
export { type ResolvedDeployment, resolveDeployment } from './resolve-deployment.ts';
export type { DeploymentStore, LookupOptions } from './store.ts';
export { validateDeployment } from './validate-deployment.ts';
