import { RuntimeUnsupportedError, runtimeName } from './node-builtin.ts';

/**
 * The web build's `importByName` (tsup.web.ts swaps it for import-by-name.ts): a Worker cannot load a module by
 * a name computed at run time, and a page has no package resolution, so an optional peer dependency must be given.
 */
export const importByName = async (specifier: string): Promise<unknown> => {
  throw new RuntimeUnsupportedError(
    `${specifier} cannot be loaded by name in ${runtimeName()} (switchyard's web build): import it yourself and pass ` +
      `what it gives (OpenTelemetrySink: the \`tracer\` option).`,
  );
};
