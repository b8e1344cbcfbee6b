import { defineConfig } from "vitest/config";
import LongestFirst from "./test/sequencer.js";

// VITEST_JSON=<file> adds vitest's JSON report, which .ci/run counts; `npm test` stays the one command.
const json = process.env.VITEST_JSON;

const include = ["src/**/*.test.ts", "rest-facade/**/*.test.ts", "test/**/*.test.ts", "bench/**/*.test.ts"];

/**
 * Test files that declare things into the kit's process-wide registries (a scope kind, plugins, a REST
 * response kind and body parser) that no other file's server may see: each runs in a process of its own.
 * Every other file shares its worker process with the files before it (`isolate: false`): the app's
 * modules are loaded and its schema built once per worker, not once per file. test/setup.ts fails a
 * shared file that changes a registry, naming this list.
 */
export const ISOLATED_FILES = ["test/scope-kind.test.ts", "src/plugins/plugins.test.ts", "rest-facade/extensions.test.ts"];

export default defineConfig({
  // Node loads graphql's CommonJS build for every dependency; Vite would give our own files the .mjs
  // build, and graphql refuses to mix two copies of itself. Point ours at the same file.
  resolve: { alias: [{ find: /^graphql$/, replacement: "graphql/index.js" }] },
  // Outside node_modules, so `npm ci` keeps it: vitest starts the files that took longest last time first
  // (with two workers, a long file started last is the run's tail), in CI's later passes too.
  cacheDir: ".vitest-cache",
  test: {
    // Longest first on a clean clone too (CI's first pass): test/sequencer.ts.
    sequence: { sequencer: LongestFirst },
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Two cores here: vitest's default (cores − 1) ran one file at a time, while much of a file's time is
    // spent waiting (child processes, PostgreSQL, timers). TEST_WORKERS overrides it.
    maxWorkers: Number(process.env.TEST_WORKERS) || 2,
    // Migrates one database per run for every test server to copy (test/database-template.ts).
    globalSetup: ["test/global-setup.ts"],
    // Fails any test that received an /api response the OpenAPI document does not describe.
    setupFiles: ["test/setup.ts"],
    reporters: json ? ["default", ["json", { outputFile: json }]] : ["default"],
    projects: [
      // Not node_modules: the bench peers install their own (bench/peers/*/node_modules), tests included.
      { extends: true, test: { name: "shared", include, exclude: [...ISOLATED_FILES, "**/node_modules/**"], isolate: false, env: { HUBGRAPH_TEST_SHARED_PROCESS: "1" } } },
      { extends: true, test: { name: "isolated", include: ISOLATED_FILES, isolate: true } },
    ],
  },
});
