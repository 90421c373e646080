import type { Gateway } from '../../gateway.ts';
import type { StartNotice } from '../cluster/messages.ts';
import type { ClusterWorker } from '../cluster/worker-role.ts';
import { pageAccess } from '../host-check.ts';
import type { ServeOptions } from '../start-server.ts';
import { startupSummary } from '../startup-summary.ts';
import type { Listening } from './listen.ts';
import type { ServerStores } from './open-stores.ts';
import type { ServerLog } from './server-log.ts';

/**
 * The start's log lines, once the server listens: where, over which stores and providers, what it enforces, and what
 * an operator should know first (a data file others can read, no provider credentials, no API key yet). A worker of
 * `serve --workers` hands them to its primary, which writes them once for the whole server.
 */
export async function announceStart(
  options: ServeOptions,
  parts: { stores: ServerStores; gateway: Gateway; http: Listening; log: ServerLog },
  worker?: ClusterWorker,
): Promise<void> {
  const notices = await startNotices(options, parts, worker !== undefined);
  if (worker) return worker.ready(parts.http.url, notices);
  for (const { level, msg, fields } of notices) parts.log[level](msg, fields);
}

async function startNotices(
  options: ServeOptions,
  parts: { stores: ServerStores; gateway: Gateway; http: Listening },
  inCluster: boolean,
): Promise<StartNotice[]> {
  const { stores, gateway, http } = parts;
  const notices: StartNotice[] = [];
  const say = (level: StartNotice['level'], msg: string, fields?: Record<string, unknown>) =>
    notices.push({ level, msg, ...(fields ? { fields } : {}) });
  const mock = options.mock ?? false;
  const providers = gateway.configuredProviders();
  const shown = { url: http.url, data: stores.dbPath, deployments: stores.deploymentsShown };
  say('info', 'listening', { ...shown, mock: mock !== false, providers });
  const summary = startupSummary(options, stores.dbPath, mock === false ? providers : []);
  // The workers of `serve --workers` count in their primary, unless Redis counts for them.
  const counters = inCluster && !options.redis ? 'primary' : (summary.stores as { counters: string }).counters;
  say('info', 'configuration', { ...summary, stores: { ...(summary.stores as object), counters } });
  if (stores.dataFileOpen) say('warn', 'the data file is readable by other users of this machine', stores.dataFileOpen);
  if (mock !== false)
    say('info', 'simulator mode (--mock): every model is answered by the mock provider; no provider is called');
  else if (providers.length === 0) {
    say(
      'warn',
      'no provider has credentials: calls will fail with 503 provider_not_configured until one is set ' +
        '(OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY, …)',
    );
  }
  const pages = pageAccess(http.host, options.allowedHosts ?? []);
  if (pages.notice) say('info', pages.notice);
  if ((await stores.keys.activeCount()) === 0)
    say('info', `no API keys yet: create one with \`switchyard keys create --data ${stores.dataDir}\``);
  return notices;
}
