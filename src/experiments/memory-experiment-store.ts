import type { ExperimentCell, ExperimentHeader, ExperimentInput, ExperimentVersion } from './experiment.ts';
import {
  type Appended,
  type ExperimentListQuery,
  type ExperimentStore,
  experimentPage,
  matchesExperimentQuery,
  type Spending,
} from './experiment-store.ts';

interface Parts {
  header: ExperimentHeader;
  versions: ExperimentVersion[];
  inputs: ExperimentInput[];
  cells: Map<string, ExperimentCell>;
}

/** Experiments in this process's memory: the default beside the in-memory call records. */
export class MemoryExperimentStore implements ExperimentStore {
  readonly #experiments = new Map<string, Parts>();

  async create(header: ExperimentHeader): Promise<void> {
    this.#experiments.set(header.id, { header: { ...header }, versions: [], inputs: [], cells: new Map() });
  }

  async get(id: string): Promise<ExperimentHeader | null> {
    const parts = this.#experiments.get(id);
    return parts ? { ...parts.header } : null;
  }

  async list(query: ExperimentListQuery) {
    const rows = [...this.#experiments.values()]
      .map((parts) => parts.header)
      .filter((header) => matchesExperimentQuery(header, query))
      .sort((a, b) => (a.id < b.id ? 1 : -1))
      .slice(0, query.limit + 1);
    return experimentPage(rows, query.limit);
  }

  async addVersions(experimentId: string, versions: ExperimentVersion[], max = Infinity): Promise<Appended> {
    return append(this.#parts(experimentId).versions, versions, max);
  }

  async addInputs(experimentId: string, inputs: ExperimentInput[], max = Infinity): Promise<Appended> {
    return append(this.#parts(experimentId).inputs, inputs, max);
  }

  async counts(experimentId: string): Promise<{ versions: number; inputs: number }> {
    const parts = this.#experiments.get(experimentId);
    return { versions: parts?.versions.length ?? 0, inputs: parts?.inputs.length ?? 0 };
  }

  async versions(experimentId: string): Promise<ExperimentVersion[]> {
    return structuredClone(this.#experiments.get(experimentId)?.versions ?? []);
  }

  async inputs(experimentId: string): Promise<ExperimentInput[]> {
    return structuredClone(this.#experiments.get(experimentId)?.inputs ?? []);
  }

  async putCell(experimentId: string, cell: ExperimentCell): Promise<void> {
    this.#parts(experimentId).cells.set(cell.id, structuredClone(cell));
  }

  async claimCell(experimentId: string, cell: ExperimentCell, staleBefore: string): Promise<boolean> {
    const cells = this.#parts(experimentId).cells;
    const stored = cells.get(cell.id);
    if (stored && !claimable(stored, staleBefore)) return false;
    cells.set(cell.id, structuredClone(cell));
    return true;
  }

  async cells(experimentId: string): Promise<ExperimentCell[]> {
    return structuredClone([...(this.#experiments.get(experimentId)?.cells.values() ?? [])]);
  }

  async completedCell(experimentId: string, key: string): Promise<ExperimentCell | null> {
    let found: ExperimentCell | undefined;
    for (const cell of this.#experiments.get(experimentId)?.cells.values() ?? [])
      if (cell.key === key && cell.status === 'completed' && (!found || cell.id < found.id)) found = cell;
    return found ? structuredClone(found) : null;
  }

  async spending(experimentId: string, staleBefore: string): Promise<Spending> {
    let spent = 0;
    const holds: Spending['holds'] = [];
    for (const cell of this.#experiments.get(experimentId)?.cells.values() ?? []) {
      if (cell.reused_from === null) spent += cell.cost_usd ?? 0;
      if (cell.status === 'running' && cell.updated_at >= staleBefore && (cell.held_usd ?? 0) > 0)
        holds.push({ id: cell.id, held_usd: cell.held_usd! });
    }
    return { spent_usd: spent, holds };
  }

  async running(experimentId: string, staleBefore: string): Promise<number> {
    let running = 0;
    for (const cell of this.#experiments.get(experimentId)?.cells.values() ?? [])
      if (cell.status === 'running' && cell.updated_at >= staleBefore) running++;
    return running;
  }

  async findCompletedCell(
    key: string,
    where: { agentId: string; author: string | null; exceptExperiment: string },
  ): Promise<ExperimentCell | null> {
    let found: ExperimentCell | null = null;
    for (const parts of this.#experiments.values()) {
      const { header } = parts;
      if (header.id === where.exceptExperiment || header.agent_id !== where.agentId) continue;
      if (header.author !== where.author) continue;
      for (const cell of parts.cells.values())
        if (cell.key === key && cell.status === 'completed' && (!found || cell.updated_at > found.updated_at))
          found = cell;
    }
    return found && structuredClone(found);
  }

  #parts(id: string): Parts {
    const parts = this.#experiments.get(id);
    if (!parts) throw new Error(`No experiment "${id}" in this store.`);
    return parts;
  }
}

function append<Part>(parts: Part[], added: Part[], max: number): Appended {
  const held = parts.length;
  if (held + added.length > max) return { added: false, held };
  parts.push(...structuredClone(added));
  return { added: true, held };
}

/** Whether a stored cell may be claimed again: never run to the end, or left running by a run that died. */
export function claimable(stored: ExperimentCell, staleBefore: string): boolean {
  if (stored.status === 'completed') return false;
  return stored.status !== 'running' || stored.updated_at < staleBefore;
}
