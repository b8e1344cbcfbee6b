import { defineConfig } from "vitest/config";

// VITEST_JSON=<file> adds vitest's JSON report, which .ci/run counts; `npm test` stays the one command.
const json = process.env.VITEST_JSON;

export default defineConfig({
  // Node loads graphql's CommonJS build for every dependency; Vite would give our own files the .mjs
  // build, and graphql refuses to mix two copies of itself. Point ours at the same file.
  resolve: { alias: [{ find: /^graphql$/, replacement: "graphql/index.js" }] },
  test: {
    include: ["src/**/*.test.ts", "rest-facade/**/*.test.ts", "test/**/*.test.ts", "bench/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Fails any test that received an /api response the OpenAPI document does not describe.
    setupFiles: ["test/setup.ts"],
    reporters: json ? ["default", ["json", { outputFile: json }]] : ["default"],
  },
});
