import type { Gateway } from '../../gateway.ts';
import { pageAccess } from '../host-check.ts';
import type { ServeOptions } from '../start-server.ts';
import { startupSummary } from '../startup-summary.ts';
import type { Listening } from './listen.ts';
import type { ServerStores } from './open-stores.ts';
import type { ServerLog } from './server-log.ts';

/**
 * The start's log lines, once the server listens: where, over which stores and providers, what it enforces, and what
 * an operator should know first (a data file others can read, no provider credentials, no API key yet).
 */
export async function announceStart(
  options: ServeOptions,
  parts: { stores: ServerStores; gateway: Gateway; http: Listening; log: ServerLog },
): Promise<void> {
  const { stores, gateway, http, log } = parts;
  const mock = options.mock ?? false;
  const providers = gateway.configuredProviders();
  const shown = { url: http.url, data: stores.dbPath, deployments: stores.deploymentsShown };
  log.info('listening', { ...shown, mock: mock !== false, providers });
  log.info('configuration', startupSummary(options, stores.dbPath, mock === false ? providers : []));
  if (stores.dataFileOpen) log.warn('the data file is readable by other users of this machine', stores.dataFileOpen);
  if (mock !== false)
    log.info('simulator mode (--mock): every model is answered by the mock provider; no provider is called');
  else if (providers.length === 0) {
    log.warn(
      'no provider has credentials: calls will fail with 503 provider_not_configured until one is set ' +
        '(OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY, …)',
    );
  }
  const pages = pageAccess(http.host, options.allowedHosts ?? []);
  if (pages.notice) log.info(pages.notice);
  if ((await stores.keys.activeCount()) === 0)
    log.info(`no API keys yet: create one with \`switchyard keys create --data ${stores.dataDir}\``);
}
