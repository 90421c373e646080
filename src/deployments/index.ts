export * from './caller-api.ts';
export { FileDeploymentStore } from './file-store.ts';
export { MemoryDeploymentStore } from './memory-store.ts';
export { RemoteDeploymentStore, type RemoteDeploymentStoreOptions } from './remote-store.ts';
export { SqliteDeploymentStore } from './sqlite-store.ts';
export { StoredDeployments } from './stored-deployments.ts';
