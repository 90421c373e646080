import { lazyNodeBuiltin } from '../internal/node-builtin.ts';
import { type Deployment, sameDeployment } from './deployment.ts';
import { DeploymentConflictError, DeploymentStoreError, DeploymentValidationError } from './errors.ts';
import { type DeploymentStore, filterAndSort, indexById, type SourcedDeployment } from './store.ts';
import { validateDeployment } from './validate-deployment.ts';

/** What a runtime without a file system (a Worker, a page) can use instead of a deployments directory. */
export const USE_ANOTHER_STORE =
  'Use a MemoryDeploymentStore, or a RemoteDeploymentStore (an http(s):// URL) of a switchyard serve, there.';
const FEATURE = 'A deployments directory (FileDeploymentStore)';
const nodeCrypto = lazyNodeBuiltin('node:crypto', FEATURE, USE_ANOTHER_STORE);
const nodeFs = lazyNodeBuiltin('node:fs/promises', FEATURE, USE_ANOTHER_STORE);
const nodePath = lazyNodeBuiltin('node:path', FEATURE, USE_ANOTHER_STORE);

const EXTENSIONS = new Set(['.json', '.yaml', '.yml']);

interface CachedFile {
  mtimeMs: number;
  size: number;
  entry: SourcedDeployment;
}

/**
 * One deployment per `.json`, `.yaml` or `.yml` file in a directory (files starting with "." are ignored).
 * Every call lists the directory and stats the files; a file is read again only when its mtime or size changed.
 * `put` writes `<id>.json` through a temporary file that is linked into place, so a reader never sees half a file
 * and an existing file is never overwritten.
 */
export class FileDeploymentStore implements DeploymentStore {
  readonly dir: string;
  #files = new Map<string, CachedFile>();
  #loading: Promise<Map<string, SourcedDeployment>> | undefined;

  constructor(dir: string) {
    // A runtime without a file system fails here, when the gateway is made, not at its first call.
    nodeFs();
    this.dir = dir;
  }

  async get(id: string): Promise<Deployment | undefined> {
    return (await this.#load()).get(id)?.deployment;
  }

  async list(filter: { agent_id?: string } = {}): Promise<Deployment[]> {
    return filterAndSort(
      [...(await this.#load()).values()].map((entry) => entry.deployment),
      filter,
    );
  }

  async put(deployment: Deployment): Promise<void> {
    const checked = validateDeployment(deployment, 'put', 400);
    await nodeFs().mkdir(this.dir, { recursive: true });
    const existing = (await this.#load()).get(checked.id);
    if (existing) return assertSame(existing, checked);

    const base = fileBaseName(checked.id);
    const temp = nodePath().join(this.dir, `.${base}.${nodeCrypto().randomUUID()}.tmp`);
    await nodeFs().writeFile(temp, `${JSON.stringify(checked, null, 2)}\n`, { flag: 'wx' });
    try {
      // The same names in the same order for every writer of the id, so two writers of it meet at one file; past
      // them (another writer took them all first), names none can take first.
      for (let attempt = 1; attempt <= 103; attempt++) {
        const name =
          attempt === 1
            ? `${base}.json`
            : attempt <= 100
              ? `${base}-${attempt}.json`
              : `${base}-${nodeCrypto().randomUUID().slice(0, 8)}.json`;
        if (await placeWithoutOverwrite(temp, nodePath().join(this.dir, name))) return;
        // The name is taken: by a concurrent put of this id, or by another id that maps to the same file name.
        const other = await readEntry(this.dir, name).catch(() => undefined);
        if (other?.deployment.id === checked.id) return assertSame(other, checked);
      }
      throw new DeploymentStoreError(`Could not find a free file name for "${checked.id}" in ${this.dir}.`, {
        location: this.dir,
      });
    } finally {
      await nodeFs()
        .unlink(temp)
        .catch(() => undefined);
    }
  }

  /** The deployments by id, refreshed from disk; concurrent callers share one refresh. */
  #load(): Promise<Map<string, SourcedDeployment>> {
    this.#loading ??= this.#refresh().finally(() => {
      this.#loading = undefined;
    });
    return this.#loading;
  }

  async #refresh(): Promise<Map<string, SourcedDeployment>> {
    const names = await this.#listFiles();
    const files = new Map<string, CachedFile>();
    await Promise.all(
      names.map(async (name) => {
        const info = await nodeFs()
          .stat(nodePath().join(this.dir, name))
          .catch(() => undefined);
        if (!info?.isFile()) return; // removed since the listing, or a link to something other than a file
        const cached = this.#files.get(name);
        if (cached && cached.mtimeMs === info.mtimeMs && cached.size === info.size) {
          files.set(name, cached);
          return;
        }
        files.set(name, { mtimeMs: info.mtimeMs, size: info.size, entry: await readEntry(this.dir, name) });
      }),
    );
    // Sorted by file name, so a duplicate id is reported the same way every time.
    const entries = [...files.keys()].sort().map((name) => files.get(name)!.entry);
    const byId = indexById(entries, this.dir);
    this.#files = files;
    return byId;
  }

  async #listFiles(): Promise<string[]> {
    try {
      const entries = await nodeFs().readdir(this.dir, { withFileTypes: true });
      return entries
        .filter((entry) => (entry.isFile() || entry.isSymbolicLink()) && !entry.name.startsWith('.'))
        .map((entry) => entry.name)
        .filter((name) => EXTENSIONS.has(nodePath().extname(name).toLowerCase()));
    } catch (error) {
      const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
      throw new DeploymentStoreError(
        missing
          ? `The deployment directory ${this.dir} does not exist.`
          : `Cannot read the deployment directory ${this.dir}: ${(error as Error).message}`,
        { location: this.dir, cause: error },
      );
    }
  }
}

function assertSame(existing: SourcedDeployment, deployment: Deployment): void {
  if (!sameDeployment(existing.deployment, deployment))
    throw new DeploymentConflictError(deployment.id, existing.source);
}

/** Reads, parses and validates one file; errors name the file (and the field). */
async function readEntry(dir: string, name: string): Promise<SourcedDeployment> {
  const source = nodePath().join(dir, name);
  const text = await nodeFs()
    .readFile(source, 'utf8')
    .catch((error: unknown) => {
      throw new DeploymentStoreError(`Cannot read ${source}: ${(error as Error).message}`, {
        location: source,
        cause: error,
      });
    });
  const json = nodePath().extname(name).toLowerCase() === '.json';
  let value: unknown;
  try {
    value = json ? JSON.parse(text) : (await loadYaml(source)).parse(text);
  } catch (error) {
    if (error instanceof DeploymentStoreError) throw error;
    const reason = (error as Error).message.split('\n')[0];
    throw new DeploymentValidationError(source, [
      { path: '', message: `not valid ${json ? 'JSON' : 'YAML'}: ${reason}` },
    ]);
  }
  return { deployment: validateDeployment(value, source), source };
}

interface YamlModule {
  parse(text: string): unknown;
}

let yamlModule: Promise<YamlModule> | undefined;

/** The `yaml` package, loaded when the first YAML file is read (JSON-only stores never pay for it). */
function loadYaml(file: string): Promise<YamlModule> {
  yamlModule ??= import('yaml') as Promise<YamlModule>;
  return yamlModule.catch((error: unknown) => {
    yamlModule = undefined;
    throw new DeploymentStoreError(`${file} is YAML, and reading YAML needs the "yaml" package (npm install yaml).`, {
      location: file,
      code: 'yaml_unavailable',
      cause: error,
    });
  });
}

/** A file name for an id: characters other than letters, digits, ".", "_" and "-" become "_". */
function fileBaseName(id: string): string {
  return id
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^\./, '_')
    .slice(0, 200);
}

/** Moves `temp` to `target` unless `target` exists; `false` when it does. */
async function placeWithoutOverwrite(temp: string, target: string): Promise<boolean> {
  try {
    await nodeFs().link(temp, target); // atomic, and fails with EEXIST instead of replacing
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS' && code !== 'EXDEV') throw error;
  }
  // No hard links on this file system: check, then rename (atomic for readers; a concurrent writer could slip in).
  const exists = await nodeFs()
    .access(target)
    .then(
      () => true,
      () => false,
    );
  if (exists) return false;
  await nodeFs().rename(temp, target);
  return true;
}
