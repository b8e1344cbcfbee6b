import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

// `npm run area:new -- <name>` (scripts/new-area.ts): with --out into a scratch folder, and for real in a
// scratch copy of this checkout, where the shared suites then run on the new area as written.
const repository = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const script = path.join(repository, "scripts", "new-area.ts");
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "hubgraph-area-"));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

const newArea = (cwd: string, ...args: string[]) =>
  spawnSync(process.execPath, ["--import", "tsx", path.join(cwd, "scripts", "new-area.ts"), ...args], {
    cwd,
    encoding: "utf8",
    timeout: 240_000,
    ...(cwd === repository ? {} : { env: cleanEnvironment(cwd) }),
  });

const WRITTEN = (name: string) => [`src/${name}/area.ts`, `src/${name}/testing.ts`, `prisma/schema/${name}.prisma`];

/**
 * The environment of a command run in the copy: no vitest worker's variables, the embedded database, and a
 * CACHE_DIR of its own (node_modules is this checkout's: a database template written into its cache would
 * replace this run's, src/db/embedded-template.ts).
 */
function cleanEnvironment(copy: string): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("VITEST") && key !== "NODE_OPTIONS" && !key.startsWith("TEST_")));
  return { ...env, DATABASE_URL: "", REDIS_URL: "", NO_COLOR: "1", CACHE_DIR: path.join(copy, ".cache") };
}

/** This checkout's files as they are now (committed or not, ignored ones aside) as a repository of its own, node_modules linked. */
function copyOfCheckout(into: string): void {
  const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: repository, encoding: "utf8" }).split("\0").filter(Boolean);
  for (const file of files) {
    const from = path.join(repository, file);
    if (!fs.existsSync(from)) continue;
    fs.mkdirSync(path.dirname(path.join(into, file)), { recursive: true });
    fs.copyFileSync(from, path.join(into, file));
  }
  fs.symlinkSync(path.join(repository, "node_modules"), path.join(into, "node_modules"));
  // A repository of its own: db:migration diffs the schema against the committed one.
  const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=test", "-c", "user.email=test@example.invalid", ...args], { cwd: into, stdio: "ignore" });
  git("init", "-q");
  git("add", "-A");
  git("commit", "-q", "-m", "the checkout as it was");
}

describe("npm run area:new", () => {
  it("with --out, writes the declaration, the tests' transcription and the model there, and prints the shared files' lines", () => {
    const run = newArea(repository, "notices", "--out", scratch);
    expect(run.status, run.stderr).toBe(0);
    for (const file of WRITTEN("notices")) {
      expect(fs.existsSync(path.join(scratch, file)), file).toBe(true);
      expect(fs.readFileSync(path.join(scratch, file), "utf8"), file).toMatch(/notice/i);
    }
    expect(fs.readFileSync(path.join(scratch, "src/notices/area.ts"), "utf8")).toContain("defineArea({");
    expect(run.stdout).toContain('import "./notices/area.js";');
    expect(run.stdout).toContain("npm run db:migration -- add_notices");
    expect(run.stdout).toContain("SELECT list_versions_track('notices', 'scope', 'scope_id');");
    expect(fs.readFileSync(path.join(scratch, "prisma/schema/notices.prisma"), "utf8")).toMatch(/model Notice \{[\s\S]*@@map\("notices"\)/);
  });

  it("refuses a name that is an area already, here or in the output folder, and writes nothing", () => {
    const here = newArea(repository, "wiki", "--out", path.join(scratch, "elsewhere"));
    expect(here.status).not.toBe(0);
    expect(here.stderr).toContain("area wiki exists already");
    expect(fs.existsSync(path.join(scratch, "elsewhere"))).toBe(false);

    const before = fs.readFileSync(path.join(scratch, "src/notices/area.ts"), "utf8");
    const again = newArea(repository, "notices", "--out", scratch);
    expect(again.status).not.toBe(0);
    expect(again.stderr).toContain("area notices exists already");
    expect(fs.readFileSync(path.join(scratch, "src/notices/area.ts"), "utf8")).toBe(before);

    expect(newArea(repository, "Bad-Name", "--out", scratch).status).not.toBe(0);
  });

  it("in a checkout, writes a working area: its migration, registry line and events, and the shared suites pass on it unedited", { timeout: 600_000 }, () => {
    const copy = path.join(scratch, "checkout");
    copyOfCheckout(copy);
    const run = newArea(copy, "notices");
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(fs.readFileSync(path.join(copy, "src/areas.ts"), "utf8")).toContain('import "./notices/area.js";');
    const migration = fs.readdirSync(path.join(copy, "prisma/migrations")).find((entry) => entry.endsWith("_add_notices"));
    expect(migration).toBeDefined();
    const sql = fs.readFileSync(path.join(copy, "prisma/migrations", migration!, "migration.sql"), "utf8");
    expect(sql).toContain('CREATE TABLE "notices"');
    expect(sql).toContain("list_counts_track('notices'");

    // It type-checks as written (tsx would run it with type errors).
    const typecheck = spawnSync(process.execPath, [path.join(copy, "node_modules", "typescript", "bin", "tsc"), "--noEmit", "-p", "."], { cwd: copy, encoding: "utf8", timeout: 240_000 });
    expect(typecheck.status, `${typecheck.stdout}\n${typecheck.stderr}`.slice(-4000)).toBe(0);

    // The suites every area meets, filtered to the new area's tests and to those that check every declaration.
    const report = path.join(copy, "report.json");
    const suites = spawnSync(
      process.execPath,
      [
        path.join(copy, "node_modules", "vitest", "vitest.mjs"),
        "run",
        "rest-facade/table.test.ts",
        "test/contract.test.ts",
        "test/totals.test.ts",
        "test/plans.test.ts",
        "test/count-triggers.test.ts",
        "test/group-deletion.test.ts",
        "test/write-path.test.ts",
        "test/openapi.test.ts",
        "-t",
        "notices|counter triggers|every model with scope columns|docs/events.md lists|is valid OpenAPI",
        "--reporter=default",
        "--reporter=json",
        `--outputFile.json=${report}`,
      ],
      { cwd: copy, encoding: "utf8", env: cleanEnvironment(copy), timeout: 540_000 },
    );
    // eslint-disable-next-line no-control-regex
    const output = `${suites.stdout}\n${suites.stderr}`.replace(/\x1b\[[0-9;]*m/g, "");
    expect(suites.status, output.slice(-6000)).toBe(0);
    // The new area's own tests ran and passed, in each suite that has some for an area (not only the declaration-wide checks).
    const results = (JSON.parse(fs.readFileSync(report, "utf8")) as { testResults: { name: string; assertionResults: { fullName: string; status: string }[] }[] }).testResults;
    const ran = (file: string) =>
      results
        .filter((result) => result.name.endsWith(file))
        .flatMap((result) => result.assertionResults)
        .filter((test) => /notices/.test(test.fullName));
    for (const file of ["rest-facade/table.test.ts", "test/contract.test.ts", "test/totals.test.ts", "test/plans.test.ts"]) {
      const tests = ran(file);
      expect(tests.filter((test) => test.status === "passed").length, `${file}: the new area's tests`).toBeGreaterThan(0);
      expect(tests.filter((test) => test.status === "failed"), file).toEqual([]);
    }
    expect(ran("test/contract.test.ts").filter((test) => test.status === "passed").length).toBeGreaterThan(20);
  });
});
