import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files' order for a run on few cores: the longest first, so that a run does not end with one worker on a long
 * file and the other idle. Vitest orders so by itself when its cache knows every file's duration (a checkout that
 * ran the suite); a clean clone (CI) has no cache, and vitest's fallback, the larger files first, ran the 20-second
 * heap test last. There, the durations of a past run stand in (`durations.json`, written by `record-durations.ts`);
 * a file not in it counts as short (under a second) and keeps vitest's order among the short ones.
 */
export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ordered = await super.sort(files);
    if (files.every((file) => this.ctx.cache.getTestSpecificationResult(file))) return ordered;
    const recorded = JSON.parse(readFileSync(new URL('./durations.json', import.meta.url), 'utf8')) as Record<
      string,
      number
    >;
    const seconds = (file: TestSpecification) => recorded[relative(this.ctx.config.root, file.moduleId)] ?? 0;
    // Projects stay in vitest's order (one after the other); within one, stable: among files of the same recorded time
    // (the short ones), vitest's order stays.
    const projects = [...new Set(ordered.map((file) => file.project.name))];
    return ordered
      .map((file, index) => ({ file, index, project: projects.indexOf(file.project.name), seconds: seconds(file) }))
      .sort((a, b) => a.project - b.project || b.seconds - a.seconds || a.index - b.index)
      .map(({ file }) => file);
  }
}
