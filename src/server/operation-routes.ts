import { firstIssueError } from '../internal/first-issue.ts';
import type { AnyOperation, OperationServices } from './operation.ts';
import { readJsonBody } from './read-json-body.ts';
import { json } from './responses.ts';
import type { Route } from './router.ts';

/**
 * The HTTP routes of the operations that have one: the scope checked by the handler before anything is read (the
 * route's `scope`), the input taken from the request as the binding says and checked with the operation's schema,
 * then the operation's handler, as its MCP tool runs it.
 */
export function operationRoutes(
  operations: readonly AnyOperation[],
  services: OperationServices,
  maxBodyBytes: number,
): Route[] {
  return operations.flatMap((operation): Route[] => {
    const { http } = operation;
    if (!http) return [];
    const bound = http.body === true ? maxBodyBytes : http.body;
    return [
      {
        method: http.method,
        path: http.path,
        auth: 'key',
        ...(operation.scope === undefined ? {} : { scope: operation.scope }),
        async handle({ request, params, access }) {
          const body = bound === undefined ? undefined : await readJsonBody(request, bound);
          const parts = { params, query: request.query, body };
          const checked = await operation.input().safeParseAsync(http.input(parts));
          if (!checked.success) throw (operation.invalid ?? invalidInput(operation))(checked.error);
          const output = await operation.handle(checked.data, { ...services, access: access! }, http.flags?.(parts));
          const status = typeof http.status === 'function' ? http.status(output) : (http.status ?? 200);
          return json(http.reply ? http.reply(output) : output, status);
        },
      },
    ];
  });
}

function invalidInput(operation: AnyOperation) {
  return (error: Parameters<typeof firstIssueError>[1]) => firstIssueError(operation.name, error);
}
