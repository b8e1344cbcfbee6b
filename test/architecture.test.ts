import path from "node:path";
import { describe, expect, it } from "vitest";
import { cruise, type IViolation } from "dependency-cruiser";
import extractDepcruiseOptions from "dependency-cruiser/config-utl/extract-depcruise-options";
import extractTSConfig from "dependency-cruiser/config-utl/extract-ts-config";

/**
 * The layering of docs/architecture.md holds: dependency-cruiser checks every import of the server, its
 * tests and its benchmarks against the rules of .dependency-cruiser.cjs (no import circle; src/db imports
 * nothing above it; the kit imports no surface, schema, execution or area; accounts do not reach into
 * authentication), as `npm run deps:check` does. Every violation fails here, listed: none is known and
 * let pass.
 */
const ROOT = path.join(import.meta.dirname, "..");
const CRUISED = ["src", "rest-facade", "test", "bench"];

const described = (violation: IViolation) =>
  `${violation.rule.name}: ${[violation.from, ...(violation.cycle?.map((step) => step.name) ?? [violation.to])].join(" → ")}`;

describe("the layers (docs/architecture.md, .dependency-cruiser.cjs)", () => {
  it("no import breaks a rule", { timeout: 120_000 }, async () => {
    {
      const options = await extractDepcruiseOptions(path.join(ROOT, ".dependency-cruiser.cjs"));
      const result = await cruise(CRUISED, { ...options, baseDir: ROOT }, {}, { tsConfig: extractTSConfig(path.join(ROOT, "tsconfig.json")) });
      const output = result.output;
      if (typeof output === "string") throw new Error(`dependency-cruiser answered text: ${output}`);
      const violations = output.summary.violations.filter((violation) => violation.rule.severity !== "ignore").map(described);
      expect(violations, "imports against the layering (docs/architecture.md); run `npm run deps:check`").toEqual([]);
      // The rules were read and applied (a config that failed to load would find nothing).
      expect(output.summary.ruleSetUsed?.forbidden?.length).toBeGreaterThanOrEqual(4);
      expect(output.summary.totalCruised).toBeGreaterThan(300);
      // Imports were resolved, not only files found (a broken .js → .ts resolution would cruise every file with no edge).
      const errorsModule = output.modules.find((module) => module.source === "src/common/database-errors.ts");
      expect(errorsModule?.dependencies.map((dependency) => dependency.resolved)).toContain("src/db/sql.ts");
    }
  });
});
