import { Catalog } from './catalog.ts';
import type { CatalogData } from './catalog-schema.ts';
import data from './models.json' with { type: 'json' };

let catalog: Catalog | undefined;

/** The catalog shipped with the package (`models.json`), built on first use. */
export function defaultCatalog(): Catalog {
  catalog ??= new Catalog(data as CatalogData);
  return catalog;
}
