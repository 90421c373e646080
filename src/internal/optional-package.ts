/** Node's codes for a specifier that resolves to nothing: ESM `import()`, and `require` in the CommonJS build. */
const NOT_FOUND = new Set(['ERR_MODULE_NOT_FOUND', 'MODULE_NOT_FOUND']);

/** An optional package is not installed: `packageName` says which to install. */
export class MissingPackageError extends Error {
  override name = 'MissingPackageError';
  readonly packageName: string;
  constructor(packageName: string, neededFor: string, cause: unknown) {
    super(
      `${neededFor} needs the package ${packageName}, an optional dependency of switchyard-llm that is not ` +
        `installed. Install it beside switchyard-llm: npm install ${packageName}`,
      { cause },
    );
    this.packageName = packageName;
  }
}

/**
 * Loads a package of `optionalDependencies` (a cloud SDK only that cloud's users install). When the package itself
 * is absent, the error says which package to install and how; any other failure (one of its own dependencies
 * missing, a load error) is left as it is, since installing the package again would not cure it.
 *
 * `load` is the literal `import('<name>')`, so that type checking and bundlers still see which module it is.
 */
export async function importOptional<T>(name: string, neededFor: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (!isMissing(error, name)) throw error;
    throw new MissingPackageError(name, neededFor, error);
  }
}

/** Whether `error` says that `name` itself could not be found (Node quotes the specifier it looked for). */
function isMissing(error: unknown, name: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (
    typeof code === 'string' && NOT_FOUND.has(code) && typeof message === 'string' && message.includes(`'${name}'`)
  );
}
