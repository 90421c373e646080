import { loadZod } from '../internal/load-zod.ts';
import { unrefTimer } from '../internal/runtime.ts';
import { applyExtension, type CatalogExtension } from './apply-extension.ts';
import type { Catalog } from './catalog.ts';
import { type ModelProfile, OPENAI_STYLE_PROFILE } from './model-profile.ts';
import { readSource } from './sources/read-source.ts';
import { updateCatalog } from './update-catalog.ts';

export interface CatalogRefreshOptions {
  /** models.dev's `api.json`, OpenRouter's `/api/v1/models` or catalog rows; `models.dev`, `openrouter` name theirs. */
  url: string;
  /** Time between refreshes (default 6 hours). The first one starts with the gateway. */
  intervalMs?: number;
  /** Called when a refresh fails; the last good catalog stays in use. */
  onError?: (error: Error) => void;
  /** A fetch implementation (proxies, tests). */
  fetch?: typeof fetch;
}

/** What the last refresh did. */
export interface CatalogRefreshStatus {
  /** When the catalog in use was made from the source (ISO time); `null` until a refresh succeeded. */
  refreshed_at: string | null;
  /** Models the source added to the base catalog and models whose facts it changed, at that refresh. */
  added: number;
  changed: number;
  /** The last failure, kept until a refresh succeeds. */
  error: { at: string; message: string } | null;
}

/**
 * What a refresh asks of the gateway's providers (its `ProviderRegistry`): their ids, and what each assumes of a
 * model it serves that no catalog lists. Declared here so that the catalog stands below the providers.
 */
export interface ProviderProfiles {
  readonly definitions: Iterable<{ readonly id: string }>;
  get(id: string): { readonly uncatalogued?: ModelProfile | undefined } | undefined;
}

/**
 * Keeps a gateway's catalog current from a public list: the base catalog (bundled, or the one given) with what the
 * source says, rebuilt in the background and swapped whole. A failed refresh keeps the last good catalog.
 */
export class CatalogRefresher {
  readonly #base: Catalog;
  readonly #options: CatalogRefreshOptions;
  readonly #registry: ProviderProfiles;
  #current: Catalog;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<CatalogRefreshStatus> | undefined;
  #status: CatalogRefreshStatus = { refreshed_at: null, added: 0, changed: 0, error: null };

  constructor(base: Catalog, options: CatalogRefreshOptions, registry: ProviderProfiles) {
    this.#base = base;
    this.#current = base;
    this.#options = options;
    this.#registry = registry;
  }

  get catalog(): Catalog {
    return this.#current;
  }

  get status(): CatalogRefreshStatus {
    return { ...this.#status };
  }

  /** Refreshes now, then every `intervalMs`; the timer never keeps the process alive. */
  start(): void {
    void this.refresh();
    this.#timer = setInterval(() => void this.refresh(), this.#options.intervalMs ?? 6 * 3_600_000);
    unrefTimer(this.#timer);
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  /** One refresh (joined if one is running). Never rejects: a failure is in the status, the catalog unchanged. */
  refresh(): Promise<CatalogRefreshStatus> {
    this.#running ??= this.#refresh().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async #refresh(): Promise<CatalogRefreshStatus> {
    try {
      await loadZod();
      const providers = new Set([...this.#registry.definitions].map((definition) => definition.id));
      const source = await readSource(this.#options.url, {
        providers,
        ...(this.#options.fetch ? { fetch: this.#options.fetch } : {}),
      });
      if (source.kind === 'rows') {
        this.#current = applyExtension(source.extension as CatalogExtension, {
          base: this.#base,
          source: source.label,
        });
        this.#status = { refreshed_at: new Date().toISOString(), added: 0, changed: 0, error: null };
      } else {
        const update = updateCatalog({
          base: this.#base,
          source: source.models,
          profileOf: (provider) => this.#registry.get(provider)?.uncatalogued ?? OPENAI_STYLE_PROFILE,
          today: new Date().toISOString().slice(0, 10),
        });
        this.#current = applyExtension(update.rows, { base: this.#base });
        const { added, changed } = update.counts;
        this.#status = { refreshed_at: new Date().toISOString(), added, changed, error: null };
      }
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      this.#status = { ...this.#status, error: { at: new Date().toISOString(), message: failure.message } };
      this.#options.onError?.(failure);
    }
    return this.status;
  }
}
