/**
 * The web build's `importOptional` (tsup.web.ts swaps it for optional-package.ts): the provider SDKs and cloud
 * auth libraries are not bundled for Workers and browsers (they need Node.js, and would weigh megabytes), so asking
 * for one fails with what to do instead, without loading anything.
 */
import { runtimeName } from './node-builtin.ts';

/** The package cannot be loaded in this build (the name is kept from the Node build, where it means "install it"). */
export class MissingPackageError extends Error {
  override name = 'MissingPackageError';
  readonly packageName: string;
  constructor(packageName: string, neededFor: string) {
    super(
      `${neededFor} needs the package ${packageName}, which is not available in this build of switchyard-llm ` +
        `(the web build, which ${runtimeName()} loads): use transport 'wire', the default.`,
    );
    this.packageName = packageName;
  }
}

export async function importOptional<T>(name: string, neededFor: string, _load: () => Promise<T>): Promise<T> {
  throw new MissingPackageError(name, neededFor);
}
