import type * as Zod from 'zod';
import { type CatalogSchemas, catalogSchemas } from './catalog-schema.ts';

/** The schemas of a catalog extension (`extendCatalog`, `catalog update`), built with the catalog's on first use. */
export const extensionSchemas = (): ExtensionSchemas => (schemas ??= buildSchemas(catalogSchemas()));
let schemas: ExtensionSchemas | undefined;
type ExtensionSchemas = ReturnType<typeof buildSchemas>;

function buildSchemas(catalog: CatalogSchemas) {
  const z = catalog.zod;
  /** An offering in a user row: `model` and price fields may be left out when it changes one the catalog has. */
  const offeringRowSchema = catalog.providerOffering.extend({
    model: catalog.providerOffering.shape.model.optional(),
    pricing: catalog.pricing.partial().optional(),
  });

  /**
   * One user row. With an `id` the catalog has (a pinned id, alias or synonym), it changes that model: the fields it
   * gives replace the catalog's, `supports` flag by flag, and each offering replaces the catalog's offering of the
   * same provider (its price field by field) or is added after them. With a new `id`, it is a whole model, or, with
   * `base`, a copy of the `base` model (a fine-tune, a private deployment) served by the row's own `providers`.
   */
  const catalogRowSchema = z.strictObject({
    id: catalog.modelEntry.shape.id,
    base: z.string().min(1).optional(),
    name: catalog.modelEntry.shape.name.optional(),
    maker: catalog.modelEntry.shape.maker.optional(),
    release_date: catalog.modelEntry.shape.release_date.optional(),
    context_window: catalog.modelEntry.shape.context_window.optional(),
    max_output_tokens: catalog.modelEntry.shape.max_output_tokens.optional(),
    supports: catalog.supports.partial().optional(),
    reasoning: catalog.reasoningFacts.optional(),
    providers: z.array(offeringRowSchema).optional(),
    deprecated_at: catalog.modelEntry.shape.deprecated_at,
    retires_at: catalog.modelEntry.shape.retires_at,
    replacement: catalog.modelEntry.shape.replacement,
    source: catalog.modelEntry.shape.source,
    updated: catalog.modelEntry.shape.updated,
  });

  /** A catalog extension: rows alone, or rows with aliases and synonyms and where they come from. */
  const catalogExtensionSchema = z.union([
    z.array(catalogRowSchema),
    z.strictObject({
      updated: catalog.catalogData.shape.updated.optional(),
      /** Default `source` of the rows (`models.dev`, `openrouter`, …). */
      source: z.string().min(1).optional(),
      models: z.array(catalogRowSchema),
      aliases: catalog.catalogData.shape.aliases.optional(),
      synonyms: catalog.catalogData.shape.synonyms.optional(),
    }),
  ]);

  return { offeringRow: offeringRowSchema, catalogRow: catalogRowSchema, catalogExtension: catalogExtensionSchema };
}

export type OfferingRow = Zod.infer<ExtensionSchemas['offeringRow']>;
export type CatalogRow = Zod.infer<ExtensionSchemas['catalogRow']>;
export type CatalogExtension = Zod.infer<ExtensionSchemas['catalogExtension']>;
