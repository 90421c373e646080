import { requireAgent } from '../access/agents.ts';
import { type ModelNames, requireModelNamed } from '../access/models.ts';
import type { Annotations, FindCellOwner } from '../annotations/annotations.ts';
import type { DeploymentStore } from '../deployments/store.ts';
import { InvalidRequestError, PermissionDeniedError, SwitchyardError } from '../errors.ts';
import { loadZod } from '../internal/load-zod.ts';
import type { CallStore } from '../records/call-store.ts';
import { uuidv7 } from '../records/uuidv7.ts';
import {
  cellId,
  type Experiment,
  type ExperimentHeader,
  type ExperimentInputInput,
  type ExperimentVersion,
  type ExperimentVersionInput,
  MAX_INPUTS,
  MAX_VERSIONS,
  staleBefore,
} from './experiment.ts';
import { resolveInputs, resolveVersions } from './experiment-parts.ts';
import { cellAnnotation, fieldComparisons, spentOf, versionSummaries } from './experiment-results.ts';
import { checkedExperimentPart } from './experiment-schema.ts';
import { DEFAULT_EXPERIMENT_LIMIT, type ExperimentStore } from './experiment-store.ts';
import type { ExperimentCaller, Experiments } from './experiments-api.ts';
import { type CellServices, runCells } from './run-experiment.ts';

/** How often `get` with `wait_ms` looks at the store again (cells may be run by another replica). */
const POLL_MS = 200;
/** Annotations shown with an experiment. */
const MAX_SHOWN_ANNOTATIONS = 1000;

export interface ExperimentDependencies extends Omit<CellServices, 'store'> {
  /** Where the experiments are kept: beside the call records (`openStores`). */
  store: ExperimentStore;
  calls: CallStore;
  annotations: Annotations;
  deployments: DeploymentStore | undefined;
  flush(): Promise<void>;
  /** The catalog the model rule resolves a version's model against, as a call would. */
  catalog?: (() => ModelNames) | undefined;
}

/**
 * `gateway.experiments`: kept beside the call records (the same SQLite file or PostgreSQL database), or in memory.
 * Every method takes the caller's rules (`ExperimentCaller`); in-process without one, everything is allowed.
 */
export function createExperiments(dependencies: ExperimentDependencies): Experiments & { cellOwner: FindCellOwner } {
  const storeOf = () => dependencies.store;
  /** Runs under way in this process, by experiment: one at a time each. */
  const running = new Map<string, Promise<void>>();

  /** The header, when the caller reads it; a 404 otherwise, as for one that does not exist. */
  const readable = async (id: string, caller: ExperimentCaller | undefined): Promise<ExperimentHeader> => {
    const header = await storeOf().get(id);
    if (!header || (caller?.mayRead && !(await caller.mayRead(header))))
      throw new SwitchyardError(`No experiment has the id "${id}".`, {
        status: 404,
        type: 'invalid_request_error',
        code: 'experiment_not_found',
        param: 'experiment_id',
      });
    return header;
  };
  const writable = async (id: string, caller: ExperimentCaller | undefined) => {
    const header = await readable(id, caller);
    requireAgent(caller?.mayUseAgent, header.agent_id, 'act');
    await requireChange(caller, header);
    return header;
  };

  const view = async (header: ExperimentHeader): Promise<Experiment> => {
    const experiments = storeOf();
    const [versions, inputs, cells, notes] = await Promise.all([
      experiments.versions(header.id),
      experiments.inputs(header.id),
      experiments.cells(header.id),
      dependencies.annotations.list({ experiment_id: header.id, limit: MAX_SHOWN_ANNOTATIONS }),
    ]);
    const order = new Map(versions.flatMap((v, i) => inputs.map((input, j) => [cellId(v.id, input.id), i * 1e6 + j])));
    cells.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
    const annotations = notes.data.flatMap((note) => cellAnnotation(note) ?? []);
    // Pending cells wait for a run (an aborted one left them); running ones are being called, here or elsewhere.
    const fresh = staleBefore();
    const unfinished = cells.some((cell) => cell.status === 'running' && cell.updated_at >= fresh);
    const ended = cells.filter((cell) => cell.status !== 'pending' && cell.status !== 'running').length;
    const complete = ended === versions.length * inputs.length && ended > 0;
    return {
      object: 'experiment',
      ...header,
      status: unfinished || running.has(header.id) ? 'running' : complete ? 'completed' : 'idle',
      spent_usd: spentOf(cells),
      versions,
      inputs,
      cells,
      summaries: versionSummaries(versions, inputs, cells, annotations),
      comparisons: fieldComparisons(inputs, cells),
      annotations,
    };
  };

  /** A version's cells are calls the caller will make: a model outside its models is refused now, as they would be. */
  const allowedVersions = (versions: ExperimentVersion[], caller: ExperimentCaller | undefined) => {
    const models = caller?.callOptions?.().access?.models;
    for (const version of versions) requireModelNamed(models, dependencies.catalog?.(), version.content.model);
    return versions;
  };

  const inputSource = (caller: ExperimentCaller | undefined) => ({
    calls: dependencies.calls,
    scope: async () => (caller?.callScope ? caller.callScope() : {}),
    flush: dependencies.flush,
  });

  /**
   * Until the experiment stops running here and on every replica, or `until`: the end of a run of this process is
   * awaited; another replica's cells are counted in the store (`running`, an index), never read.
   */
  const whileRunning = async (id: string, until: number): Promise<void> => {
    for (let left = until - performance.now(); left > 0; left = until - performance.now()) {
      const local = running.get(id);
      if (local) {
        await Promise.race([local.catch(() => undefined), delay(left)]);
        if (running.get(id) !== local) continue;
      }
      if ((await storeOf().running(id, staleBefore())) === 0 && !running.has(id)) return;
      await delay(Math.min(POLL_MS, until - performance.now()));
    }
  };

  const experiments: Experiments & { cellOwner: FindCellOwner } = {
    /** For annotations: whose an experiment is, and its cells, read once when first asked; `null`: none. */
    async cellOwner(experimentId) {
      const header = await storeOf().get(experimentId);
      if (!header) return null;
      let cells: Promise<Set<string>> | undefined;
      const readCells = async () => {
        const [versions, inputs] = await Promise.all([
          storeOf().versions(experimentId),
          storeOf().inputs(experimentId),
        ]);
        return new Set(versions.flatMap((version) => inputs.map((input) => cellId(version.id, input.id))));
      };
      return {
        agent_id: header.agent_id,
        author: header.author,
        hasCell: async (id) => (await (cells ??= readCells())).has(id),
      };
    },

    async create(input, caller) {
      await loadZod();
      const checked = checkedExperimentPart('create', input);
      requireAgent(caller?.mayUseAgent, checked.agent_id, 'act');
      const header: ExperimentHeader = {
        id: `exp_${uuidv7()}`,
        agent_id: checked.agent_id,
        title: checked.title ?? `Experiment of ${checked.agent_id}`,
        description: checked.description ?? null,
        budget_usd: checked.budget_usd ?? null,
        author: caller?.keyId ?? null,
        created_at: new Date().toISOString(),
      };
      // Resolved before anything is stored: a wrong version or input leaves no experiment behind.
      const versions = allowedVersions(
        await resolveVersions(header, (checked.versions ?? []) as ExperimentVersionInput[], dependencies.deployments),
        caller,
      );
      const written = (checked.inputs ?? []) as ExperimentInputInput[];
      const inputs = await resolveInputs(header, written, inputSource(caller), MAX_INPUTS);
      await storeOf().create(header);
      if (versions.length > 0) await storeOf().addVersions(header.id, versions);
      if (inputs.length > 0) await storeOf().addInputs(header.id, inputs);
      return view(header);
    },

    // The caps hold per experiment, whatever the number of requests: checked before anything is resolved, and
    // again by the store in the transaction that adds (two requests adding at once cannot pass them together).
    async addVersions(id, versions, caller) {
      await loadZod();
      const checked = checkedExperimentPart('addVersions', { experiment_id: id, versions });
      const header = await writable(id, caller);
      const held = (await storeOf().counts(id)).versions;
      if (held + checked.versions.length > MAX_VERSIONS) throw tooMany('versions', held, checked.versions.length);
      const resolved = allowedVersions(
        await resolveVersions(header, checked.versions as ExperimentVersionInput[], dependencies.deployments),
        caller,
      );
      const appended = await storeOf().addVersions(id, resolved, MAX_VERSIONS);
      if (!appended.added) throw tooMany('versions', appended.held, resolved.length);
      return view(header);
    },

    async addInputs(id, inputs, caller) {
      await loadZod();
      const checked = checkedExperimentPart('addInputs', { experiment_id: id, inputs });
      const header = await writable(id, caller);
      const held = (await storeOf().counts(id)).inputs;
      if (held >= MAX_INPUTS) throw tooMany('inputs', held, checked.inputs.length);
      const written = checked.inputs as ExperimentInputInput[];
      const resolved = await resolveInputs(header, written, inputSource(caller), MAX_INPUTS - held);
      const appended = await storeOf().addInputs(id, resolved, MAX_INPUTS);
      if (!appended.added) throw tooMany('inputs', appended.held, resolved.length);
      return view(header);
    },

    async run(id, options = {}, caller) {
      const { signal: _signal, onClaimed: _onClaimed, ...rest } = options;
      await loadZod();
      checkedExperimentPart('run', rest);
      const header = await writable(id, caller);
      // A run already under way here is waited for, then this one runs what is left (cells added since).
      await running.get(id)?.catch(() => undefined);
      const services = { ...dependencies, store: storeOf() };
      const run = runCells(services, header, options, () => caller?.callOptions?.() ?? {}, caller?.callSlot);
      running.set(id, run);
      try {
        await run;
      } finally {
        if (running.get(id) === run) running.delete(id);
      }
      return view(header);
    },

    async get(id, options = {}, caller) {
      await loadZod();
      const { wait_ms: waitMs = 0 } = checkedExperimentPart('get', options);
      const header = await readable(id, caller);
      const until = performance.now() + waitMs;
      const experiment = await view(header);
      if (experiment.status !== 'running' || waitMs === 0) return experiment;
      await whileRunning(id, until);
      return view(header);
    },

    async list(query = {}, caller) {
      await loadZod();
      const checked = checkedExperimentPart('list', query);
      const scope = caller?.experimentScope ? await caller.experimentScope() : {};
      return storeOf().list({ ...checked, limit: checked.limit ?? DEFAULT_EXPERIMENT_LIMIT, scope });
    },
  };
  return experiments;
}

/** A 400: the add would take the experiment past its cap of versions or inputs. */
function tooMany(part: 'versions' | 'inputs', held: number, adding: number): InvalidRequestError {
  const max = part === 'versions' ? MAX_VERSIONS : MAX_INPUTS;
  return new InvalidRequestError(
    `${part}: the experiment holds ${held} ${part}, and adding ${adding} would pass the ${max} an experiment may ` +
      `hold. Create another experiment for more.`,
    part,
    `too_many_${part}`,
  );
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)).unref?.());
}

/** A 403 unless the caller changes this experiment it reads (adds to it, runs it): `ExperimentCaller.mayChange`. */
export async function requireChange(caller: ExperimentCaller | undefined, header: ExperimentHeader): Promise<void> {
  if (!caller?.mayChange || (await caller.mayChange(header))) return;
  throw new PermissionDeniedError(
    `This API key reads experiment "${header.id}" but does not change it: ` +
      'its author (or a key it was minted under) does.',
  );
}
