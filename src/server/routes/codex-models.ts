import type { Gateway } from '../../gateway.ts';
import { json } from '../responses.ts';
import type { Route } from '../router.ts';
import { type CodexModelInfo, codexModel } from './codex-model-info.ts';

type ListedModel = ReturnType<Gateway['listModels']>['data'][number];

/**
 * Codex reads the models of a provider of its configuration from the provider's `model_catalog_url`, with
 * `?client_version=<its version>`, and keeps at most this much of the answer: a longer one it refuses whole.
 */
export const CODEX_CATALOG_MAX_BYTES = 1024 * 1024;

/**
 * Codex's maker. Given a catalog, Codex takes its first model as its default and knows no model outside it (its own
 * bundled metadata is not used for the provider): OpenAI's models lead, as in Codex's own catalog, so its default
 * stays OpenAI's newest model.
 */
const CODEX_MAKER = 'openai';

/**
 * `GET /v1/codex/models`: the catalog as Codex's model catalog (`{ models: ModelInfo[] }`), for `model_catalog_url`.
 * Without an entry, Codex treats a model as unknown and leaves out its `apply_patch` tool, so it cannot edit files;
 * with one, it sends `apply_patch` as a free-form tool, which the gateway converts for every provider. No key, as
 * `/v1/models`.
 */
export function codexModelRoutes(gateway: Gateway): Route[] {
  return [
    {
      method: 'GET',
      path: /^\/v1\/codex\/models$/,
      auth: 'none',
      async handle() {
        return json({ models: codexCatalog(gateway) });
      },
    },
  ];
}

/**
 * Every model, OpenAI's first, then newest first, then each synonym (`claude-sonnet-4-5`) as a hidden entry, so that
 * `-m <synonym>` finds the model's metadata without a second picker line. Retired models are left out. Codex matches
 * a model by the longest slug it starts with, and `<provider>/<model>` by the part after the slash.
 */
function codexCatalog(gateway: Gateway): CodexModelInfo[] {
  const codexMakerFirst = (model: ListedModel) => (model.owned_by === CODEX_MAKER ? 0 : 1);
  const rows = gateway
    .listModels()
    .data.filter((model) => model.lifecycle !== 'retired')
    .sort(
      (a, b) =>
        codexMakerFirst(a) - codexMakerFirst(b) ||
        b.release_date.localeCompare(a.release_date) ||
        a.id.localeCompare(b.id),
    );
  const byId = new Map(rows.map((model) => [model.id, model]));
  const hidden: Array<[string, ListedModel]> = [];
  for (const [synonym, target] of Object.entries(gateway.catalog.data.synonyms)) {
    const model = byId.get(target) ?? byId.get(gateway.catalog.find(target)?.id ?? '');
    if (model && !byId.has(synonym)) hidden.push([synonym, model]);
  }
  const entries = [
    ...rows.map((model) => [model.id, model] as [string, ListedModel]),
    ...hidden.sort(([a], [b]) => a.localeCompare(b)),
  ].map(([slug, model], index) => codexModel(model, { slug, listed: slug === model.id, index }));
  const slugs = new Set(entries.map((entry) => entry.slug));
  for (const entry of entries) if (entry.upgrade && !slugs.has(entry.upgrade.model)) entry.upgrade = null;
  return withinCodexLimit(entries);
}

/** The entries that fit in what Codex reads: the first ones (the newest models, then the synonyms). */
function withinCodexLimit(entries: CodexModelInfo[]): CodexModelInfo[] {
  // `{"models":[` and `]}`, then each entry and its comma.
  let size = 14;
  const kept: CodexModelInfo[] = [];
  for (const entry of entries) {
    size += Buffer.byteLength(JSON.stringify(entry)) + 1;
    if (size > CODEX_CATALOG_MAX_BYTES) break;
    kept.push(entry);
  }
  return kept;
}
