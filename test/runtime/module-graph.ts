/**
 * What a built entry reaches, walked by esbuild's resolver as a bundler would walk it (issue 38): the Node built-ins
 * imported on the way, and the packages' files it takes in, following static imports only or dynamic ones too.
 */
import { builtinModules } from 'node:module';
import { relative } from 'node:path';
import * as esbuild from 'esbuild';

const BUILTINS = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));

export interface ModuleGraph {
  /** `importer → built-in`, one line each, importer relative to `base`. */
  builtins: string[];
  /** Every file taken in (as esbuild names it: relative to `base`, or `<namespace>:<path>`). */
  files: string[];
}

export async function walkModuleGraph(
  entry: string,
  options: { platform: 'node' | 'browser' | 'neutral'; conditions: string[]; dynamic: boolean; base: string },
): Promise<ModuleGraph> {
  const builtins = new Set<string>();
  const result = await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    metafile: true,
    format: 'esm',
    platform: options.platform,
    conditions: options.conditions,
    mainFields: options.platform === 'node' ? ['module', 'main'] : ['browser', 'module', 'main'],
    logLevel: 'silent',
    absWorkingDir: options.base,
    plugins: [
      {
        name: 'walk',
        setup(build) {
          build.onResolve({ filter: /.*/ }, ({ path, kind, importer }) => {
            // Not followed when only the static graph is asked for: a lazy import is loaded on first use.
            if (!options.dynamic && (kind === 'dynamic-import' || kind === 'require-call'))
              return { path, external: true };
            if (BUILTINS.has(path) || path.startsWith('node:')) {
              builtins.add(`${relative(options.base, importer)} → ${path}`);
              return { path, external: true };
            }
            return undefined;
          });
        },
      },
    ],
  });
  return {
    builtins: [...builtins].sort(),
    files: Object.keys(result.metafile.inputs),
  };
}
