import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "..");

describe("the README's configuration table", () => {
  it("has a row for every variable src/config.ts reads, and none for a variable it does not", () => {
    const source = fs.readFileSync(path.join(root, "src/config.ts"), "utf8");
    const schema = source.slice(source.indexOf("const environment = z"), source.indexOf(".superRefine("));
    const read = [...schema.matchAll(/^ {4}([A-Z][A-Z_]+):/gm)].map((match) => match[1]!);
    expect(read).toContain("REDIS_URL");
    const readme = fs.readFileSync(path.join(root, "README.md"), "utf8");
    const table = readme.slice(readme.indexOf("| Variable | Default | Meaning |"));
    const rows = table.slice(0, table.search(/\n\n/)).split("\n").slice(2);
    const documented = rows.flatMap((row) => [...row.split("|")[1]!.matchAll(/`([A-Z][A-Z_]+)`/g)].map((match) => match[1]!));
    expect([...documented].sort()).toEqual([...read].sort());
  });
});
