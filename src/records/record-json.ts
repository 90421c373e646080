import type { CallRecord } from './call-record.ts';

/** Records are not changed once built, so their JSON is made once for every writer that needs it. */
const made = new WeakMap<CallRecord, string>();

/**
 * A record's JSON, serialised once: the journal writes it before the answer leaves, and the SQL sinks store the same
 * text, so journaling costs a write, not a second `JSON.stringify` of every record.
 */
export function recordJson(record: CallRecord): string {
  let json = made.get(record);
  if (json === undefined) {
    json = JSON.stringify(record);
    made.set(record, json);
  }
  return json;
}
