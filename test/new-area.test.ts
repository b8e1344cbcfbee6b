import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

// `npm run area:new -- <name>` (scripts/new-area.ts), run into a scratch folder with --out so no generated
// area lands in the repository.
const repository = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const script = path.join(repository, "scripts", "new-area.ts");
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "hubgraph-area-"));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

const newArea = (...args: string[]) =>
  spawnSync(process.execPath, ["--import", "tsx", script, ...args], { cwd: repository, encoding: "utf8", timeout: 60_000 });

const SKELETON = (name: string) => [
  `src/${name}/service.ts`,
  `src/${name}/graphql.ts`,
  `src/${name}/testing.ts`,
  `rest-facade/rows/${name}.ts`,
  `rest-facade/documents/${name}.graphql`,
  `prisma/schema/${name}.prisma`,
];

/** `import { a, b as c, type T } from "../x.js"`: the module specifier and the names it takes. */
function importsOf(source: string): { from: string; names: string[] }[] {
  return [...source.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+"([^"]+)"/g)].map(([, names, from]) => ({
    from: from!,
    names: names!
      .split(",")
      .map((name) => name.trim().replace(/^type\s+/, "").split(/\s+as\s+/)[0]!)
      .filter(Boolean),
  }));
}

/** Whether a TypeScript module's source exports `name` (a declaration or an export list). */
const exportsName = (source: string, name: string) =>
  new RegExp(`export\\s+(?:declare\\s+)?(?:async\\s+)?(?:function\\*?|const|let|class|type|interface|enum)\\s+${name}\\b`).test(source) ||
  [...source.matchAll(/export\s*\{([^}]*)\}/g)].some(([, list]) => list!.split(",").some((item) => item.trim().split(/\s+as\s+/).pop() === name));

describe("npm run area:new", () => {
  it("writes the skeleton of a new area, and prints the migration lines to review", () => {
    const run = newArea("billboards", "--out", scratch);
    expect(run.status, run.stderr).toBe(0);
    for (const file of SKELETON("billboards")) {
      expect(fs.existsSync(path.join(scratch, file)), file).toBe(true);
      expect(fs.readFileSync(path.join(scratch, file), "utf8"), file).toMatch(/billboards/i);
    }
    expect(run.stdout).toContain("npm run db:migration -- add_billboards");
    expect(run.stdout).toContain("SELECT list_counts_track('billboards', 'state', 1, 'access', 'created_by', 'scope', 'scope_id', '', '');");
    expect(run.stdout).toContain("SELECT list_versions_track('billboards', 'scope', 'scope_id');");
    expect(fs.readFileSync(path.join(scratch, "prisma/schema/billboards.prisma"), "utf8")).toMatch(/model Billboard \{[\s\S]*@@map\("billboards"\)/);
  });

  it("the skeleton's code imports only what the kit exports (the area's own and generated modules aside)", () => {
    const checked: string[] = [];
    for (const file of SKELETON("billboards").filter((candidate) => candidate.endsWith(".ts"))) {
      for (const { from, names } of importsOf(fs.readFileSync(path.join(scratch, file), "utf8"))) {
        // Its own service, the Prisma client and codegen's documents exist once the area is generated and built.
        if (!from.startsWith(".") || from === "./service.js" || from.includes("/generated/") || from.includes("/billboards/")) continue;
        const module = path.resolve(path.dirname(path.join(repository, file)), from).replace(/\.js$/, ".ts");
        expect(fs.existsSync(module), `${file} imports ${from}`).toBe(true);
        const source = fs.readFileSync(module, "utf8");
        for (const name of names) {
          expect(exportsName(source, name), `${file}: ${from} exports ${name}`).toBe(true);
          checked.push(`${from} ${name}`);
        }
      }
    }
    expect(checked).toEqual(expect.arrayContaining(["../common/fields.js fieldTable", "../graphql/fields.js tableInput", "../field-params.js fieldParams", "../common/write-path.js changeRecord"]));
  });

  it("refuses a name that is an area already, here or in the output folder, and writes nothing", () => {
    const here = newArea("wiki", "--out", path.join(scratch, "elsewhere"));
    expect(here.status).not.toBe(0);
    expect(here.stderr).toContain("area wiki exists already");
    expect(fs.existsSync(path.join(scratch, "elsewhere"))).toBe(false);

    const before = fs.readFileSync(path.join(scratch, "src/billboards/service.ts"), "utf8");
    const again = newArea("billboards", "--out", scratch);
    expect(again.status).not.toBe(0);
    expect(again.stderr).toContain("area billboards exists already");
    expect(fs.readFileSync(path.join(scratch, "src/billboards/service.ts"), "utf8")).toBe(before);

    expect(newArea("Bad-Name", "--out", scratch).status).not.toBe(0);
  });
});
