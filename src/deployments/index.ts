export { type CreateDeploymentStoreOptions, createDeploymentStore } from './create-store.ts';
export {
  DEPLOYMENT_ENVIRONMENTS,
  type Deployment,
  type DeploymentEnvironment,
  type DeploymentVersion,
  formatDeploymentId,
  parseDeploymentId,
} from './deployment.ts';
export {
  DeploymentConflictError,
  type DeploymentIssue,
  DeploymentNotFoundError,
  DeploymentStoreError,
  DeploymentValidationError,
} from './errors.ts';
export { FileDeploymentStore } from './file-store.ts';
export { MemoryDeploymentStore } from './memory-store.ts';
export { RemoteDeploymentStore, type RemoteDeploymentStoreOptions } from './remote-store.ts';
export {
  type ResolvedDeployment,
  resolveDeployment,
} from './resolve-deployment.ts';
export { SqliteDeploymentStore } from './sqlite-store.ts';
export type { DeploymentStore } from './store.ts';
export { StoredDeployments } from './stored-deployments.ts';
export { validateDeployment } from './validate-deployment.ts';
