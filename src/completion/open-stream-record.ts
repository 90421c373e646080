import type { CallContext } from '../records/call-recorder.ts';
import type { SwitchyardResponseInfo } from '../types.ts';
import type { CallTrace } from './call-plan.ts';
import type { RecordFacts } from './finalise.ts';
import type { Services } from './services.ts';

/** What the record of a stream says when the process died before the stream ended. */
const STOPPED =
  'The server stopped (killed or crashed) while this stream was being relayed: how it ended is not known. The usage ' +
  'and cost are what was billed before it began.';

/**
 * Journals the record a stream leaves if the process is killed before it ends (`status: "error"`, code
 * `server_stopped`, the request as sent, what was billed so far), as it opens; the returned function drops it,
 * once the stream's real record is journaled. Without a journal, nothing.
 */
export function journalOpenStream(
  services: Services,
  facts: RecordFacts,
  trace: CallTrace,
  info: SwitchyardResponseInfo,
): () => void {
  const { request, ...resolved } = facts;
  const context: CallContext = {
    id: trace.id,
    dialect: trace.dialect,
    startedAt: trace.startedAt,
    billed: [...trace.billed],
    ...resolved,
  };
  const stopped = Object.assign(new Error(STOPPED), { type: 'server_error', code: 'server_stopped' });
  return services.recorder.opened(request, context, { info, error: stopped });
}
