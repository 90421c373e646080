import type * as Zod from 'zod';
import type { ScopeNeed } from '../access/scopes.ts';
import type { DeploymentStore } from '../deployments/store.ts';
import type { Gateway } from '../gateway.ts';
import type { BackgroundRuns } from './background-runs.ts';
import type { KeyAccess } from './key-access.ts';
import type { KeyLimiter } from './key-limiter.ts';
import type { KeyStore } from './key-store.ts';
import type { McpGateway } from './mcp-gateway/mcp-gateway.ts';

/** What every operation may call: the server's gateway and stores. */
export interface OperationServices {
  gateway: Gateway;
  keys: KeyStore;
  deployments: DeploymentStore | undefined;
  runs: BackgroundRuns;
  /** The upstream MCP servers `/mcp` offers the tools of, when `serve` declares some. */
  mcp?: McpGateway | undefined;
  /** Keys' rate, in-flight and budget limits: the server's defaults, and what each key has used. */
  limiter?: KeyLimiter | undefined;
}

/** One request's: the services and the caller's key (`KeyAccess`), whose rules the handler asks. */
export interface OperationContext extends OperationServices {
  access: KeyAccess;
}

/** An HTTP request as an operation's binding reads it. */
export interface HttpParts {
  /** The path pattern's capture groups, URL-decoded. */
  params: string[];
  query: URLSearchParams;
  /** The JSON body (`undefined` for a binding that reads none). */
  body: unknown;
}

/**
 * One thing a key can do on this server, declared once: its name (the MCP tool's), the scope it needs, its input
 * schema and its handler. Its HTTP route (`operationRoutes`) and its MCP tool (`registerOperationTool`) are both
 * derived from this: the scope is checked once by either surface, the input validated with the same schema, and the
 * same handler answers. `Flags` are what one surface says beside the input (HTTP's `run: true`, a wait in
 * milliseconds where MCP's tool takes seconds).
 */
export interface Operation<Input = unknown, Output = unknown, Flags = undefined> {
  /** The MCP tool's name. */
  name: string;
  /** For the agent reading the tool list; the scope the operation needs is appended from `scope`. */
  description: string;
  /** Checked before the input is read: one scope, or any one of several. Absent: the handler's rules decide. */
  scope?: ScopeNeed | undefined;
  /** The input's schema (zod, built on first use: zod is loaded by the first request that needs it). */
  input(): Zod.ZodType<Input>;
  /** HTTP's 400 for an input the schema refuses (MCP's SDK answers its own); default `firstIssueError`. */
  invalid?: ((error: Zod.ZodError) => Error) | undefined;
  /** MCP's hints: a read-only or destructive tool. */
  hints?: { readOnlyHint?: boolean; destructiveHint?: boolean } | undefined;
  handle(input: Input, context: OperationContext, flags: Flags): Promise<Output>;
  /** The HTTP route, for an operation offered over HTTP too. */
  http?: HttpBinding<Output, Flags> | undefined;
  /** The MCP tool's flags and its answer, when they are not the handler's own. */
  mcp?: { flags?(input: Input): Flags; result?(output: Output): unknown } | undefined;
}

export interface HttpBinding<Output, Flags> {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Matched against the whole path; capture groups become `params`. */
  path: RegExp;
  /** The body's bound in bytes, for a route that reads one; `true`: the server's. Absent: no body is read. */
  body?: number | true;
  /** The operation's input, from the path, the query and the body: checked with the operation's schema. */
  input(parts: HttpParts): unknown;
  flags?(parts: HttpParts): Flags;
  /** The status of a success (default 200). */
  status?: number | ((output: Output) => number);
  /** The body of a success, when HTTP shapes it (a list as `{ object: 'list', data }`). */
  reply?(output: Output): unknown;
}

/** Any operation, as the lists that derive routes and tools hold them. */
// biome-ignore lint/suspicious/noExplicitAny: each operation's own types are checked where it is declared
export type AnyOperation = Operation<any, any, any>;

/** An operation, its types inferred from the declaration. */
export function defineOperation<Input, Output, Flags = undefined>(
  operation: Operation<Input, Output, Flags>,
): Operation<Input, Output, Flags> {
  return operation;
}

/** The sentence an MCP tool's description ends with, from the operation's scope. */
export function scopeSentence(scope: ScopeNeed | undefined): string {
  if (scope === undefined) return '';
  const names = typeof scope === 'string' ? [scope] : [...scope];
  const listed = names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names.at(-1)}` : names[0];
  return ` Needs the scope ${listed}.`;
}
