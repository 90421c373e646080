import { PermissionDeniedError } from '../errors.ts';
import type { SensitiveDataMode } from '../guardrails/mode.ts';
import type { CallRecord } from '../records/call-record.ts';
import type { KeyLimits } from './key-limits.ts';

/**
 * What the caller of one call may do: the limits of a `switchyard serve` API key (or any limits an embedding
 * application sets). The pipeline applies them itself, after a deployment has been expanded and for every
 * candidate, so no dialect, route or fallback can step around them.
 */
export interface CallAccess {
  /** The API key's id (never the key): attributes the call in its record and its key budgets. */
  keyId?: string;
  /** The keys that minted `keyId`, nearest first: their key budgets and limits count this call too. */
  ancestors?: readonly string[];
  /**
   * The tenant the call belongs to (`tenantOf`): the response cache it reads and writes, the namespace of its trace
   * and workflow budgets. `switchyard serve` sets the key's (`tenantOfKey`); absent, the root of the key's lineage.
   */
  tenant?: string;
  /**
   * The own limits (`KeyLimits`) of `keyId` and of its ancestors that set some, by key id: their token-a-minute and
   * dollar budgets replace the gateway's `key` budgets for that key. Absent: the gateway's alone.
   */
  keyLimits?: Readonly<Record<string, KeyLimits>> | undefined;
  /**
   * Takes one more request from the caller's request rate, for a request the call sends beside its first (a hedge);
   * rejects when none is left, and the call goes on without it. Absent: no rate to count against.
   */
  takeRequest?(): Promise<void>;
  /**
   * What the call does with sensitive data it holds (the key's `sensitive_data`): the strictest of it, the
   * gateway's and the request's applies. Absent: the gateway's.
   */
  sensitiveData?: SensitiveDataMode | null | undefined;
  /** `null` or absent: any agent. Otherwise the call must run as one of these agents. */
  agents?: readonly string[] | null;
  /** `null` or absent: any model. Otherwise every model tried (fallbacks too) must be one of these. */
  models?: readonly string[] | null;
  /**
   * Whether this caller may read a recorded call (and so continue it with `previous_response_id`). Absent: only
   * the calls made with `keyId`.
   */
  mayReadCall?(record: CallRecord): boolean | Promise<boolean>;
}

/** Whether the caller may read `record`: its own predicate, else the record was made with the caller's key. */
export async function mayReadCall(access: CallAccess | undefined, record: CallRecord): Promise<boolean> {
  if (!access) return true;
  if (access.mayReadCall) return access.mayReadCall(record);
  return access.keyId !== undefined && record.metadata?.api_key_id === access.keyId;
}

/**
 * A call's metadata attributed to the caller's key (records, key budgets): `metadata.api_key_id` is the key's id,
 * and a request naming another key, which would dodge the key's budgets, is a 403.
 */
export function attributedToKey<Metadata extends { api_key_id?: unknown } | null | undefined>(
  keyId: string | undefined,
  metadata: Metadata,
): Metadata | (Metadata & { api_key_id: string }) {
  if (keyId === undefined || metadata?.api_key_id === keyId) return metadata;
  if (metadata?.api_key_id !== undefined)
    throw new PermissionDeniedError("metadata.api_key_id is set from the caller's key; leave it out.");
  return { ...metadata, api_key_id: keyId } as Metadata & { api_key_id: string };
}
