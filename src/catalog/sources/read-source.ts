import { CatalogError } from '../../errors.ts';
import { lazyNodeBuiltin } from '../../internal/node-builtin.ts';
import { fromModelsDev, isModelsDev } from './models-dev.ts';
import { fromOpenRouter, isOpenRouter } from './openrouter.ts';
import type { SourceModels } from './source-model.ts';

const nodeFs = lazyNodeBuiltin('node:fs/promises', 'Reading a catalog source from a file');

/** The public lists `--from` names. */
const KNOWN_SOURCES: Readonly<Record<string, string>> = {
  'models.dev': 'https://models.dev/api.json',
  openrouter: 'https://openrouter.ai/api/v1/models',
};

export interface ReadSourceOptions {
  /** The providers this Switchyard can call: a list's models at other providers are skipped. */
  providers: ReadonlySet<string>;
  fetch?: typeof fetch;
  signal?: AbortSignal;
  /** Largest answer read (default 64 MiB; models.dev's whole list is a few MB). */
  maxBytes?: number;
  /** How long a download may take, from the request to the last byte (default 60 s). */
  timeoutMs?: number;
  /** Told each step of a download (`fetching …`, `received …`), for a command to show. */
  onProgress?: (step: string) => void;
}

/** A list read: public models in the catalog's terms, or catalog rows as `extendCatalog` takes them. */
export type CatalogSource =
  | { kind: 'models'; models: SourceModels }
  | { kind: 'rows'; label: string; extension: unknown };

/**
 * Reads a model list: `models.dev`, `openrouter`, a URL or a file, in models.dev's `api.json` shape, OpenRouter's
 * `/api/v1/models` shape, or as catalog rows. The shape is recognised from the data.
 */
export async function readSource(from: string, options: ReadSourceOptions): Promise<CatalogSource> {
  const known = Object.hasOwn(KNOWN_SOURCES, from) ? KNOWN_SOURCES[from] : undefined;
  const url = known ?? (/^https?:\/\//i.test(from) ? from : undefined);
  const label = known ? from : url ? withoutCredentials(url) : from;
  const text = url ? await download(url, label, options) : await readLocal(from);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new CatalogError(`${label}: not JSON (${(error as Error).message}).`, { source: label });
  }
  if (isOpenRouter(data)) return { kind: 'models', models: fromOpenRouter(data, label) };
  if (isModelsDev(data)) return { kind: 'models', models: fromModelsDev(data, options.providers, label) };
  if (typeof data !== 'object' || data === null)
    throw new CatalogError(`${label}: not a model list (a JSON ${data === null ? 'null' : typeof data}).`, {
      source: label,
    });
  return { kind: 'rows', label, extension: data };
}

async function download(url: string, label: string, options: ReadSourceOptions): Promise<string> {
  const limit = options.maxBytes ?? 64 * 1024 * 1024;
  const timeoutMs = options.timeoutMs ?? 60_000;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = AbortSignal.any([timeout, ...(options.signal ? [options.signal] : [])]);
  const shown = withoutCredentials(url);
  options.onProgress?.(
    `fetching ${shown === label ? shown : `${label} (${shown})`}, for at most ${timeoutMs / 1000} s`,
  );
  const failed = (error: unknown) =>
    new CatalogError(
      timeout.aborted
        ? `${label}: no answer within ${timeoutMs / 1000} s.`
        : `${label}: cannot be fetched (${(error as Error).message}).`,
      { source: label },
    );
  let response: Response;
  try {
    response = await (options.fetch ?? fetch)(url, { signal, headers: { accept: 'application/json' } });
  } catch (error) {
    throw failed(error);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new CatalogError(`${label}: answered ${response.status}.`, { source: label });
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body ?? []) {
      size += chunk.byteLength;
      if (size > limit) {
        await response.body?.cancel();
        throw new CatalogError(`${label}: the answer is larger than ${limit} bytes.`, { source: label });
      }
      chunks.push(chunk);
    }
  } catch (error) {
    throw error instanceof CatalogError ? error : failed(error);
  }
  options.onProgress?.(`received ${(size / 1024).toFixed(0)} kB from ${label}`);
  return Buffer.concat(chunks).toString('utf8');
}

async function readLocal(path: string): Promise<string> {
  try {
    return await nodeFs().readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new CatalogError(`${path}: cannot be read (${code}).`, { source: path });
  }
}

/** The URL as it may be shown: a user and password in it become `***`. */
function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.username && !parsed.password) return url;
    parsed.username = '***';
    parsed.password = '';
    return parsed.toString();
  } catch {
    return url.replace(/\/\/[^@/]*@/, '//***@');
  }
}
