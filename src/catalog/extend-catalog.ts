import { zodAtHand } from '../internal/load-zod.ts';
import { applyExtension, type CatalogExtension, type ExtendCatalogOptions } from './apply-extension.ts';
import type { Catalog } from './catalog.ts';

export type { CatalogExtension, CatalogRow, ExtendCatalogOptions } from './apply-extension.ts';

/**
 * The bundled catalog (or `options.base`) with your rows: models added, prices, limits and capabilities changed,
 * offerings added (an Azure deployment name, a fine-tune id). `extension` is the rows, or the path of a JSON file
 * holding them. Everything is checked against the catalog schema; a `CatalogError` names the file, the row, the
 * model id and the field. See docs/catalog.md.
 */
export function extendCatalog(extension: CatalogExtension | string, options: ExtendCatalogOptions = {}): Catalog {
  zodAtHand();
  return applyExtension(extension, options);
}
