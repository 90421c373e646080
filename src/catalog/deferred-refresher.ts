import type { Catalog } from './catalog.ts';
import type {
  CatalogRefresher,
  CatalogRefreshOptions,
  CatalogRefreshStatus,
  ProviderProfiles,
} from './catalog-refresh.ts';

/**
 * A gateway's catalog refresh, its code imported when the gateway is made with `catalogRefresh`: the refresh, the
 * sources' readers and the catalog's checks are a chunk of their own in a page's bundle, which a page that does not
 * refresh never loads. Until it is loaded (a turn of the event loop), the catalog is the base one, as it is anyway
 * until the first refresh ends.
 */
export class DeferredRefresher {
  #refresher: CatalogRefresher | undefined;
  readonly #loading: Promise<CatalogRefresher | Error>;
  #stopped = false;

  constructor(base: Catalog, options: CatalogRefreshOptions, registry: ProviderProfiles) {
    this.#loading = import('./catalog-refresh.ts')
      .then(({ CatalogRefresher }) => {
        const refresher = new CatalogRefresher(base, options, registry);
        this.#refresher = refresher;
        if (!this.#stopped) refresher.start();
        return refresher;
      })
      .catch(failed);
    // A page offline when it fetches the chunk: told as a failed refresh is, and the base catalog kept.
    void this.#loading.then((loaded) => loaded instanceof Error && options.onError?.(loaded));
  }

  get catalog(): Catalog | undefined {
    return this.#refresher?.catalog;
  }

  /** As `CatalogRefresher.refresh`, never rejects: a refresh that could not load is a failed one. */
  refresh(): Promise<CatalogRefreshStatus> {
    return this.#loading.then((loaded) =>
      loaded instanceof Error
        ? { refreshed_at: null, added: 0, changed: 0, error: { at: new Date().toISOString(), message: loaded.message } }
        : loaded.refresh(),
    );
  }

  stop(): void {
    this.#stopped = true;
    this.#refresher?.stop();
  }
}

function failed(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
