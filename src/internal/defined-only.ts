/**
 * The entries of `options` whose value is not `undefined`: spread over defaults, an option given as `undefined`
 * (what a consumer read from an unset environment variable) leaves the default in place, as leaving it out does.
 */
export function definedOnly<Options extends object>(
  options: Options | undefined,
): { [Key in keyof Options]?: Exclude<Options[Key], undefined> } {
  if (options === undefined) return {};
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as {
    [Key in keyof Options]?: Exclude<Options[Key], undefined>;
  };
}
