import { matchesAnnotationQuery, type NormalizedAnnotationQuery, type StoredAnnotation } from './annotation.ts';
import { type AnnotationStore, pageOf } from './annotation-store.ts';

/** Annotations in memory, the latest `capacity` kept (oldest forgotten first): beside `MemorySink`. */
export class MemoryAnnotationStore implements AnnotationStore {
  readonly capacity: number;
  /** Oldest first, as written. */
  #rows: StoredAnnotation[] = [];

  constructor(capacity = 10_000) {
    this.capacity = Math.max(1, Math.floor(capacity));
  }

  /** The ids held, so that an id is refused twice as the SQL stores' primary keys refuse it. */
  #ids = new Set<string>();

  async insert(rows: StoredAnnotation[]): Promise<void> {
    const ids = new Set(rows.map((row) => row.id));
    if (ids.size < rows.length || rows.some((row) => this.#ids.has(row.id)))
      throw new Error('MemoryAnnotationStore: an annotation id is already stored; nothing of the batch was.');
    this.#rows.push(...rows.map((row) => structuredClone(row)));
    for (const id of ids) this.#ids.add(id);
    if (this.#rows.length > this.capacity)
      for (const row of this.#rows.splice(0, this.#rows.length - this.capacity)) this.#ids.delete(row.id);
  }

  async list(query: NormalizedAnnotationQuery) {
    const found: StoredAnnotation[] = [];
    for (let index = this.#rows.length - 1; index >= 0 && found.length <= query.limit; index--) {
      const row = this.#rows[index]!;
      if (matchesAnnotationQuery(row, query)) found.push(structuredClone(row));
    }
    return pageOf(found, query.limit);
  }
}
