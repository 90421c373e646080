export {
  DEPLOYMENT_ENVIRONMENTS,
  formatDeploymentId,
  parseDeploymentId,
  validateDeployment,
  type Deployment,
  type DeploymentEnvironment,
  type DeploymentVersion,
  type JsonSchemaObject,
} from './deployment.ts';
export { DeploymentConflictError, DeploymentNotFoundError, DeploymentStoreError, DeploymentValidationError, type DeploymentIssue } from './errors.ts';
export { MemoryDeploymentStore, type DeploymentStore } from './store.ts';
export { FileDeploymentStore } from './file-store.ts';
export { SqliteDeploymentStore } from './sqlite-store.ts';
export { RemoteDeploymentStore, type RemoteDeploymentStoreOptions } from './remote-store.ts';
export { createDeploymentStore, type CreateDeploymentStoreOptions } from './create-store.ts';
export { resolveDeployment, type DeploymentCallRequest, type DeploymentSettings, type ResolvedDeployment } from './resolve-deployment.ts';
