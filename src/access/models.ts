import { PermissionDeniedError } from '../errors.ts';

/** The catalog as the model rule reads it: names (ids, aliases, synonyms) and providers' own names of a model. */
export interface ModelNames<Entry extends { id: string } = { id: string }> {
  find(name: string): Entry | undefined;
  findOffering(provider: string, providerModel: string): Entry | undefined;
}

/** The catalog model a name means: an id, alias or synonym, `<provider>/<its own name>`, or `<provider>/<id>`. */
export function catalogModelOf<Entry extends { id: string }>(
  catalog: ModelNames<Entry>,
  name: string,
): Entry | undefined {
  const slash = name.indexOf('/');
  if (slash <= 0) return catalog.find(name);
  const rest = name.slice(slash + 1);
  return catalog.find(name) ?? catalog.findOffering(name.slice(0, slash), rest) ?? catalog.find(rest);
}

/**
 * The one model rule: whether a caller limited to `models` may use the catalog model `modelId`. An allowed name
 * is the model as written (`written`: the reference, its `<provider>/<model>` form), its id, or names the same
 * catalog model (an alias or synonym of it: a key for `gpt-4o-mini` may use `gpt-4o-mini-2024-07-18`).
 */
export function modelAllowed(
  models: readonly string[] | null | undefined,
  catalog: Pick<ModelNames, 'find'> | undefined,
  modelId: string,
  ...written: Array<string | undefined>
): boolean {
  if (!models) return true;
  return models.some(
    (allowed) => allowed === modelId || written.includes(allowed) || catalog?.find(allowed)?.id === modelId,
  );
}

/** A 403 unless `modelAllowed`. */
export function requireModel(
  models: readonly string[] | null | undefined,
  catalog: Pick<ModelNames, 'find'> | undefined,
  modelId: string,
  ...written: Array<string | undefined>
): void {
  if (modelAllowed(models, catalog, modelId, ...written)) return;
  throw new PermissionDeniedError(`This API key may not use ${modelId}; it may use only ${models!.join(', ')}.`);
}

/**
 * For what pins a model before any call is made (a deployment, an experiment's version): a 403 unless a call to
 * `name` would be allowed, the name resolved against the catalog as a call resolves it.
 */
export function requireModelNamed(
  models: readonly string[] | null | undefined,
  catalog: ModelNames | undefined,
  name: string,
): void {
  if (!models) return;
  const known = catalog && catalogModelOf(catalog, name);
  if (modelAllowed(models, catalog, known?.id ?? name, name)) return;
  throw new PermissionDeniedError(`This API key may not use ${name}; it may use only ${models.join(', ')}.`);
}
