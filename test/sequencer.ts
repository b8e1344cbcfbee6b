import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Seconds the longest files took in a PGlite pass on the 2-core machine (2026-11-28, the pass in
 * docs/testing.md). With two workers a long file started last is the run's tail: vitest starts files by the
 * durations of the last run (`.vitest-cache/`), longest first, but a clean clone has no last run — CI's first
 * pass — and vitest then ordered by file size, which started the README's fresh clone (≈120 s, a small file)
 * 384 s into a 553 s pass and left one worker idle at the end. An estimate only orders files; a file's own
 * last duration replaces it once there is one. A file with neither counts as 0 s on a clean clone (the small
 * files, after the long ones) and as NEW_FILE_SECONDS once other files have run: a file added since, whose
 * length nobody knows yet, starts early rather than at the tail (vitest runs such files first).
 */
export const EXPECTED_SECONDS: Readonly<Record<string, number>> = {
  "test/readme.test.ts": 120,
  "test/process.test.ts": 73,
  "test/plans.test.ts": 59,
  "test/authorization-matrix.test.ts": 48,
  "test/contract.test.ts": 47,
  "test/totals.test.ts": 44,
  "test/browser/graphiql.test.ts": 37,
  "src/forum/thread-plan.test.ts": 34,
  "test/cli.test.ts": 33,
  "test/migrations.test.ts": 30,
  "src/db/embedded-template.test.ts": 29,
  "test/readme-walkthroughs.test.ts": 28,
  "src/groups/membership.test.ts": 25,
  "rest-facade/table.test.ts": 24,
  "test/browser/api-docs.test.ts": 21,
};

const NEW_FILE_SECONDS = 60;

/** vitest's order (projects one after another, failed files first, longest first), with estimates where no run is cached. */
export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const last = (spec: TestSpecification) => this.ctx.cache.getFileTestResults(`${spec.project.name}:${relative(root, spec.moduleId)}`);
    const anyCached = files.some((spec) => last(spec));
    const seconds = (spec: TestSpecification) => {
      const cached = last(spec);
      return cached ? cached.duration / 1000 : (EXPECTED_SECONDS[relative(root, spec.moduleId)] ?? (anyCached ? NEW_FILE_SECONDS : 0));
    };
    return [...files].sort((a, b) => {
      if (a.project.name !== b.project.name) return a.project.name < b.project.name ? -1 : 1;
      const failed = Number(last(b)?.failed ?? false) - Number(last(a)?.failed ?? false);
      return failed || seconds(b) - seconds(a);
    });
  }
}
