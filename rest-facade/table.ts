import path from "node:path";
import { moduleFiles } from "../src/common/modules.js";
import { declaredAreas } from "../src/common/area.js";
// The areas declared as one (src/common/area.ts) make their rows from their declarations.
import "../src/areas.js";
import { areaRows } from "./area-rows.js";
import { clearsWhenEmpty } from "./params.js";
import type { RestOperation } from "./types.js";

/**
 * The facade table: one row per documented operation, from every `rows/<area>.ts` (each exports its
 * rows as default), found by name so a new area edits no shared file here, and from every area declared
 * as one (`areaRows`). Sorted by file or area name, so the table's order does not depend on the file system.
 */
const declared: RestOperation[] = [
  ...(await Promise.all(
    moduleFiles(import.meta.url, "rows").map(async (file) => ({ name: path.basename(file).replace(/\.[jt]s$/, ""), rows: (await import(file)).default as RestOperation[] })),
  )),
  ...declaredAreas().map((area) => ({ name: area.area, rows: areaRows(area) })),
]
  .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  .flatMap((entry) => entry.rows);

/**
 * The PATCH row of a PUT row (contract: PUT replaces, PATCH on the same path is the partial update).
 * Same path, versions, document, response and access; every parameter not read from the path becomes
 * optional with no default, so what the caller leaves out is not sent and the partial GraphQL update
 * keeps it. Derived here, so an area's PUT row gets its PATCH without writing one; the start-up check
 * (check.ts) refuses a PUT whose mutation needs a field that PATCH may now leave out.
 */
export function partialUpdateRow(put: RestOperation): RestOperation {
  const placeholders = new Set([...put.path.matchAll(/\{(\w+)\}/g)].map((found) => found[1]!));
  return {
    ...put,
    method: "PATCH",
    task: `${put.task}: only the given fields (partial update)`,
    partial: true,
    params: put.params.map((param) => {
      if (placeholders.has(param.placeholder ?? param.name)) return param;
      const { default: _dropped, ...rest } = param;
      return { ...rest, required: false, clears: clearsWhenEmpty(param) };
    }),
  };
}

export const restOperations: RestOperation[] = [...declared, ...declared.filter((operation) => operation.method === "PUT").map(partialUpdateRow)];
