/** A part `serve` opened: what it is called in the log, and how to close it. */
interface Part {
  name: string;
  thing: unknown;
  close: () => unknown;
}

/**
 * Everything `serve` opened, closed by one function in the reverse order of opening: what a start that failed half-way
 * had opened, and the whole server when it stops. A part that fails to close is reported; the others still close.
 */
export class Teardown {
  readonly #parts: Part[] = [];
  readonly #report: (name: string, error: unknown) => void;
  #closing: Promise<void> | undefined;

  constructor(report: (name: string, error: unknown) => void) {
    this.#report = report;
  }

  /** `thing`, closed by `close` at the teardown (before whatever was added earlier); returned as it is. */
  add<T>(name: string, thing: T, close: (thing: T) => unknown): T {
    if (this.#closing) throw new Error(`${name} was opened after the server began to close.`);
    this.#parts.push({ name, thing, close: () => close(thing) });
    return thing;
  }

  /**
   * `owner` closes these things itself from now on (the gateway closes its record sinks and its cache store): their
   * own parts leave the teardown, and `owner` is added as a part of its own.
   */
  handOver<T>(things: readonly unknown[], name: string, owner: T, close: (owner: T) => unknown): T {
    for (let index = this.#parts.length - 1; index >= 0; index--)
      if (things.includes(this.#parts[index]!.thing)) this.#parts.splice(index, 1);
    return this.add(name, owner, close);
  }

  /** Closes every part, the last opened first, one at a time. The same promise on every call. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      for (const part of [...this.#parts].reverse()) {
        try {
          await part.close();
        } catch (error) {
          try {
            this.#report(part.name, error);
          } catch {
            // The log itself failed (a caller's log function): the other parts still close.
          }
        }
      }
    })();
    return this.#closing;
  }
}
