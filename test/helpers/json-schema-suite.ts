import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The official JSON-Schema-Test-Suite (MIT): `shared/data/json-schema-test-suite` beside the checkout or beside one
 * of its parents (a worktree sits a level deeper than the main checkout). `undefined` when it is nowhere; CI has it.
 */
export const SUITE_TESTS = findSuite();

function findSuite(): string | undefined {
  let directory = fileURLToPath(new URL('../../', import.meta.url));
  for (;;) {
    const parent = dirname(directory);
    const candidate = join(parent, 'shared/data/json-schema-test-suite/tests/');
    if (existsSync(candidate)) return candidate;
    if (parent === directory) return undefined;
    directory = parent;
  }
}

/** The suite's drafts, each with the `$schema` a user of that draft writes. */
export const SUITE_DRAFTS = {
  draft4: 'http://json-schema.org/draft-04/schema#',
  draft6: 'http://json-schema.org/draft-06/schema#',
  draft7: 'http://json-schema.org/draft-07/schema#',
  'draft2019-09': 'https://json-schema.org/draft/2019-09/schema',
  'draft2020-12': 'https://json-schema.org/draft/2020-12/schema',
} as const;
export type SuiteDraft = keyof typeof SUITE_DRAFTS;

export interface SuiteGroup {
  /** The file, relative to the draft's directory (`optional/format/date.json`). */
  file: string;
  description: string;
  schema: unknown;
  tests: Array<{ description: string; data: unknown; valid: boolean }>;
}

/** The groups of a draft's files in `subdirectory` (`''`: the required tests), sorted by file. */
export function suiteGroups(draft: SuiteDraft, subdirectory = ''): SuiteGroup[] {
  const directory = join(SUITE_TESTS!, draft, subdirectory);
  return readdirSync(directory)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .flatMap((file) =>
      (JSON.parse(readFileSync(join(directory, file), 'utf8')) as Omit<SuiteGroup, 'file'>[]).map((group) => ({
        file: subdirectory ? `${subdirectory}/${file}` : file,
        ...group,
      })),
    );
}

/** A draft's schema as a user of that draft writes it: naming its draft. */
export function withDraft(schema: unknown, draft: SuiteDraft): unknown {
  if (typeof schema !== 'object' || schema === null || '$schema' in schema) return schema;
  return { $schema: SUITE_DRAFTS[draft], ...schema };
}
