import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import type { ModelInfo } from '../catalog/catalog.ts';
import type { CatalogRow } from '../catalog/extend-catalog.ts';
import type { MediaPricing, Modality } from '../catalog/media-schema.ts';
import type { CatalogChange, CatalogUpdate } from '../catalog/update-catalog.ts';
import { formatTokens, parsePositiveInteger, printJson, printTable } from './format.ts';

interface UpdateOptions {
  from: string;
  out: string;
  dryRun?: boolean;
  /** Seconds the download may take. */
  timeout: number;
}

/** `switchyard catalog update`: a catalog file kept current from a public model list. */
export function registerCatalogCommand(program: Command): void {
  program
    .command('catalog')
    .description('Keep a catalog file current from a public model list')
    .command('update')
    .description(
      'Read models.dev, OpenRouter, a URL or a file, and write the new models and changed prices, limits and dates ' +
        'to a catalog file (hand-curated fields are kept); prints the difference',
    )
    .requiredOption('--from <source>', 'models.dev | openrouter | <url> | <file>')
    .option('--out <file>', 'the catalog file to write (read first when it exists)', 'catalog.json')
    .option('--dry-run', 'print the difference without writing')
    .option('--timeout <seconds>', 'how long the list may take to download', parsePositiveInteger, 60)
    .action(async (options: UpdateOptions) => {
      const update = await runUpdate(options);
      for (const line of describeUpdate(update, options)) process.stdout.write(`${line}\n`);
      if (options.dryRun) return;
      const today = new Date().toISOString().slice(0, 10);
      await writeFile(options.out, `${JSON.stringify({ updated: today, models: update.rows }, null, 2)}\n`);
      process.stdout.write(
        `wrote ${options.out}: use it with \`switchyard serve --catalog ${options.out}\` or ` +
          `\`extendCatalog('${options.out}')\`\n`,
      );
    });
}

/** `switchyard models`: the catalog as a table, or as `GET /v1/models` answers it. */
export function registerModelsCommand(program: Command): void {
  program
    .command('models')
    .description('List the model catalog')
    .option('--reasoning', 'only models that support reasoning')
    .option('--output <modality>', 'only models that give text, image or audio (media models included)')
    .option('--json', 'print the OpenAI /v1/models JSON instead of a table')
    .option('--catalog <file>', 'with the rows of this catalog file')
    .action(async (options: { reasoning?: boolean; json?: boolean; catalog?: string; output?: string }) => {
      const output = options.output as Modality | undefined;
      if (output !== undefined && !['text', 'image', 'audio'].includes(output)) {
        throw new Error(`--output must be text, image or audio, not ${output}`);
      }
      const { createGateway } = await import('../gateway.ts');
      const { extendCatalog } = await import('../catalog/extend-catalog.ts');
      const catalog = options.catalog === undefined ? undefined : extendCatalog(options.catalog);
      const list = createGateway({ env: {}, ...(catalog ? { catalog } : {}) }).listModels({
        reasoning: options.reasoning ?? false,
        ...(output ? { output_modality: output } : {}),
      });
      const media = list.media ?? [];
      if (options.json) return printJson({ ...list, media });
      const rows = list.data.map((model) => [
        model.id,
        model.owned_by,
        model.pricing ? `$${model.pricing.input}` : '?',
        model.pricing ? `$${model.pricing.output}` : '?',
        formatTokens(model.context_window),
        model.release_date,
        model.supports.reasoning ? 'yes' : '',
        deprecatedCell(model),
      ]);
      if (rows.length > 0 || media.length === 0)
        printTable(['id', 'maker', 'in/1M', 'out/1M', 'context', 'released', 'reasoning', 'deprecated'], rows);
      if (media.length > 0) {
        if (rows.length > 0) process.stdout.write('\n');
        printTable(
          ['media model', 'maker', 'kind', 'in → out', 'price'],
          media.map((model) => [
            model.id,
            model.maker,
            model.kind,
            `${model.modalities.input.join('+')} → ${model.modalities.output.join('+')}`,
            priceCell(model.providers[0]!.pricing),
          ]),
        );
      }
    });
}

/** A media model's price in its unit, `?` when not known. */
function priceCell(pricing: MediaPricing | null): string {
  if (!pricing) return '? (not known)';
  if (pricing.tokens) return `$${pricing.tokens.output}/1M out tokens`;
  if (pricing.per_image) return `from $${Math.min(...Object.values(pricing.per_image).flatMap(Object.values))}/image`;
  if (pricing.characters !== undefined) return `$${pricing.characters}/1M chars`;
  return pricing.minute === undefined ? '?' : `$${pricing.minute}/min`;
}

/** What the model's lifecycle means for a caller: blank while active, else when it retires (or did). */
function deprecatedCell(model: ModelInfo): string {
  if (model.lifecycle === 'active') return '';
  if (model.retires_at === undefined) return `since ${model.deprecated_at}`;
  return `${model.lifecycle === 'retired' ? 'retired' : 'retires'} ${model.retires_at}`;
}

async function runUpdate(options: UpdateOptions): Promise<CatalogUpdate> {
  const [{ extendCatalog }, { extensionSchemas }, { defaultCatalog }, { readSource }, { updateCatalog }, registry] =
    await Promise.all([
      import('../catalog/extend-catalog.ts'),
      import('../catalog/extension-schema.ts'),
      import('../catalog/default-catalog.ts'),
      import('../catalog/sources/read-source.ts'),
      import('../catalog/update-catalog.ts'),
      import('../providers/registry.ts'),
    ]);
  const { OPENAI_STYLE_PROFILE } = await import('../catalog/model-profile.ts');
  const base = defaultCatalog();
  let previous: CatalogRow[] = [];
  if (existsSync(options.out)) {
    // Checked whole first, so a broken file is named before anything is fetched.
    extendCatalog(options.out, { base });
    const parsed = extensionSchemas().catalogExtension.parse(JSON.parse(await readFile(options.out, 'utf8')));
    previous = Array.isArray(parsed) ? parsed : parsed.models;
  }
  const providers = new Set([...registry.builtInRegistry.definitions].map((definition) => definition.id));
  // What it fetches and reads goes to stderr, as it happens; stdout is the difference.
  const progress = (step: string) => process.stderr.write(`${step}\n`);
  const timeoutMs = options.timeout * 1000;
  const started = performance.now();
  const source = await readSource(options.from, { providers, timeoutMs, onProgress: progress }).catch((error) => {
    if (performance.now() - started < timeoutMs) throw error;
    throw new Error(`${(error as Error).message} Allow it longer with --timeout <seconds>.`);
  });
  if (source.kind === 'models')
    progress(
      `read ${source.models.models.length} models from ${source.models.label} (${source.models.skipped} skipped)`,
    );
  const today = new Date().toISOString().slice(0, 10);
  if (source.kind === 'rows') {
    // A file of catalog rows: checked, then its rows replace the file's rows of the same id.
    const incoming = extensionSchemas().catalogExtension.parse(source.extension);
    const rows = Array.isArray(incoming) ? incoming : incoming.models;
    extendCatalog(rows, { base, source: source.label });
    const ids = new Set(rows.map((row) => row.id));
    const changes: CatalogChange[] = rows.map((row) => ({
      id: row.id,
      kind: base.find(row.id) || previous.some((old) => old.id === row.id) ? 'changed' : 'added',
      fields: Object.keys(row)
        .filter((field) => field !== 'id')
        .map((field) => ({ field, from: undefined, to: row[field as keyof CatalogRow] })),
    }));
    return {
      rows: [...previous.filter((row) => !ids.has(row.id)), ...rows],
      changes,
      counts: {
        added: changes.filter((change) => change.kind === 'added').length,
        changed: changes.filter((change) => change.kind === 'changed').length,
        unchanged: 0,
        skipped: 0,
      },
    };
  }
  const profileOf = (provider: string) => registry.builtInRegistry.get(provider)?.uncatalogued ?? OPENAI_STYLE_PROFILE;
  return updateCatalog({ base, previous, source: source.models, profileOf, today });
}

/** The difference, one line per model: `+` added, `~` changed with each field's old and new value. */
function describeUpdate(update: CatalogUpdate, options: Pick<UpdateOptions, 'from'>): string[] {
  const { added, changed, unchanged, skipped } = update.counts;
  const lines = [
    `catalog update from ${options.from}: ${added} added, ${changed} changed, ${unchanged} unchanged, ${skipped} ` +
      'skipped (at providers without an adapter here, or without the facts a row needs)',
  ];
  for (const change of update.changes) {
    if (change.kind === 'added' && change.entry) {
      const entry = change.entry;
      const offerings = entry.providers.map((offering) =>
        offering.pricing
          ? `${offering.provider} $${offering.pricing.input} / $${offering.pricing.output} per 1M`
          : `${offering.provider} (price unknown)`,
      );
      lines.push(`+ ${entry.id}  ${offerings.join(', ')}  ${entry.context_window.toLocaleString('en-US')} context`);
      continue;
    }
    const fields = change.fields.map(({ field, from, to }) =>
      from === undefined ? `${field} ${show(to)}` : `${field} ${show(from)} → ${show(to)}`,
    );
    lines.push(`${change.kind === 'added' ? '+' : '~'} ${change.id}  ${fields.join('; ')}`);
  }
  return lines;
}

function show(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number' ? String(value) : JSON.stringify(value);
}
