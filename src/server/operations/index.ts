import type { AnyOperation } from '../operation.ts';
import { createOrUpdateDeployment, listAgentsOperation, listDeployments, listModels } from './agents.ts';
import { addAnnotations, getAnnotations } from './annotations.ts';
import { getCompletion, queryCompletions } from './calls.ts';
import {
  addInputsOperation,
  addVersionsOperation,
  createExperimentOperation,
  getExperimentOperation,
  listExperimentsOperation,
} from './experiments.ts';
import { createApiKey, listApiKeys, revokeApiKey, updateApiKey } from './keys.ts';
import { listMcpCalls } from './mcp-calls.ts';

/**
 * Every operation of the server, each declared once: the MCP tools of `/mcp`, and the HTTP routes of those that
 * have one (`operationRoutes`). A new operation goes here, and into the operation × key-kind table of
 * `test/server/operations-table.test.ts`.
 */
export const OPERATIONS: readonly AnyOperation[] = [
  listModels,
  listDeployments,
  createApiKey,
  listApiKeys,
  updateApiKey,
  revokeApiKey,
  queryCompletions,
  getCompletion,
  addAnnotations,
  getAnnotations,
  listAgentsOperation,
  createOrUpdateDeployment,
  createExperimentOperation,
  addVersionsOperation,
  addInputsOperation,
  getExperimentOperation,
  listExperimentsOperation,
  listMcpCalls,
];
