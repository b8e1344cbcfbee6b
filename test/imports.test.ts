import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Scope kinds are the only way to ask about a scope (issue 27, "what must be true" 2): who belongs to a group,
 * who manages it, who is secluded from it, is the group kind's declaration (src/groups/scope.ts), and every
 * other file asks the kind registry (src/common/scope-kinds.ts: `recordScopeSql`, `holdsRelationSql`,
 * `usersInRelationSql`, `scopesInRelationSql`). So no file outside src/groups imports that declaration or
 * reads the memberships' table, and a new kind (courses) is honoured everywhere without editing other areas.
 */
const ROOT = join(import.meta.dirname, "..");

/** The files allowed to, and why. */
const ALLOWED: Record<string, string> = {
  "src/scope-kinds.ts": "the registry's import list: it imports every kind's declaration so that it registers",
  "src/cli/seed.ts": "the demo data: it writes the demo group's memberships as rows, no rule",
};

const sources = (folder: string): string[] =>
  readdirSync(join(ROOT, folder), { withFileTypes: true }).flatMap((entry) => {
    const path = `${folder}/${entry.name}`;
    if (entry.isDirectory()) return path === "src/generated" ? [] : sources(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });

describe("scope kinds are the only way to ask about a scope", () => {
  it("no source outside src/groups imports the group kind's declaration or reads group_members (tests may, to arrange data)", () => {
    const offending = sources("src")
      .filter((path) => !path.startsWith("src/groups/") && !(path in ALLOWED))
      .filter((path) => /groups\/scope(\.js)?["']|\bgroup_members\b/.test(readFileSync(join(ROOT, path), "utf8")));
    expect(offending.map((path) => relative(ROOT, join(ROOT, path)))).toEqual([]);
  });

  it("the allowed files still need to be allowed (a stale exemption hides the next one)", () => {
    for (const path of Object.keys(ALLOWED)) expect(readFileSync(join(ROOT, path), "utf8"), path).toMatch(/groups\/scope(\.js)?["']|\bgroup_members\b/);
  });
});
