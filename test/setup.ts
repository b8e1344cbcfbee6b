import { afterAll, afterEach, expect } from "vitest";
import { takeResponseViolations } from "./openapi-responses.js";

// Every /api response a test server sent during the test must be one the OpenAPI document describes
// (test/openapi-responses.ts): a test that received anything else fails here.
afterEach(() => {
  const found = takeResponseViolations();
  if (found.length) throw new Error(`responses the OpenAPI document does not describe (${found.length}):\n  ${found.join("\n  ")}`);
});

// A file that shares its process with others (vitest.config.ts) must leave the kit's registries as it
// found them: a scope kind or plugin it declared would reach the next file's servers.
if (process.env.HUBGRAPH_TEST_SHARED_PROCESS) {
  const { registrySnapshot } = await import("./registries.js");
  const before = registrySnapshot();
  afterAll(() => {
    expect(registrySnapshot(), "this file declares into the kit's registries: list it in ISOLATED_FILES (vitest.config.ts)").toEqual(before);
  });
}

// TEST_CPU_PROFILE=<folder>: a CPU profile of each test file's process while the file runs, named after
// the file (open in Chrome DevTools), to find where a slow file's time goes.
if (process.env.TEST_CPU_PROFILE) {
  const [{ Session }, fs, path, { expect: vitestExpect }] = await Promise.all([import("node:inspector/promises"), import("node:fs"), import("node:path"), import("vitest")]);
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.start");
  afterAll(async () => {
    const { profile } = await session.post("Profiler.stop");
    session.disconnect();
    const file = path.relative(process.cwd(), vitestExpect.getState().testPath ?? "unknown").replace(/[/\\]/g, "_");
    fs.mkdirSync(process.env.TEST_CPU_PROFILE!, { recursive: true });
    fs.writeFileSync(path.join(process.env.TEST_CPU_PROFILE!, `${file}.cpuprofile`), JSON.stringify(profile));
  });
}
