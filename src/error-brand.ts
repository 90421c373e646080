/**
 * The brand of Switchyard's error classes, which `SwitchyardError.is` reads. `instanceof` is false for an error made
 * by another copy of the package (its ESM and CommonJS builds loaded in one process, or two installed versions):
 * each copy has its own classes. The brand is the class's name under a registered symbol, which every copy shares.
 * It is a string written in the source, not `Function.name`, which bundlers and minifiers rename.
 */
const BRAND = Symbol.for('switchyard-llm.error');

/** Deep enough for any error class chain; only a hostile proxy's prototypes go on further. */
const MAX_DEPTH = 32;

/** Brands each class with its key in `classes` (`{ RateLimitError }`): its name in every copy of the package. */
export function brandErrorClasses(classes: Record<string, abstract new (...args: never[]) => Error>): void {
  for (const [name, errorClass] of Object.entries(classes)) Object.defineProperty(errorClass, BRAND, { value: name });
}

/**
 * Whether `value` is an instance of `errorClass` (or of a class extending it) made by any copy of the package. A
 * class without a brand of its own (one a user wrote) is checked with `instanceof`.
 */
export function isBrandedInstance(errorClass: abstract new (...args: never[]) => Error, value: unknown): boolean {
  const wanted = brandOf(errorClass);
  if (wanted === undefined) return value instanceof errorClass;
  if (typeof value !== 'object' || value === null) return false;
  try {
    let prototype: unknown = Object.getPrototypeOf(value);
    for (let depth = 0; prototype !== null && depth < MAX_DEPTH; depth += 1) {
      const maker = Object.hasOwn(prototype as object, 'constructor') ? (prototype as { constructor: unknown }) : null;
      if (maker && typeof maker.constructor === 'function' && brandOf(maker.constructor) === wanted) return true;
      prototype = Object.getPrototypeOf(prototype);
    }
  } catch {
    // A proxy whose traps throw is no error of ours.
  }
  return false;
}

function brandOf(errorClass: object): string | undefined {
  if (!Object.hasOwn(errorClass, BRAND)) return undefined;
  const brand: unknown = (errorClass as Record<symbol, unknown>)[BRAND];
  return typeof brand === 'string' ? brand : undefined;
}
