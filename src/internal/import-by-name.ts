/**
 * `import()` of a module named at run time: an optional peer dependency that bundlers must not try to resolve (a
 * literal specifier would fail the build of an application that does not install it). The web build swaps this
 * file for import-by-name.web.ts, since workerd refuses a specifier it cannot see when the Worker is loaded.
 */
export const importByName = (specifier: string): Promise<unknown> => import(specifier);
