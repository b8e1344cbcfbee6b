import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { RestOperation } from "./types.js";

/**
 * The facade table: one row per documented operation, from every `rows/<area>.ts` (each exports its
 * rows as default), found by name so a new area edits no shared file here. Sorted by file name, so the
 * table's order does not depend on the file system.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const extension = path.extname(fileURLToPath(import.meta.url));
const files = fs
  .readdirSync(path.join(here, "rows"))
  .filter((name) => name.endsWith(extension) && !name.endsWith(`.test${extension}`) && !name.endsWith(".d.ts"))
  .sort();

export const restOperations: RestOperation[] = (
  await Promise.all(files.map(async (name) => (await import(path.join(here, "rows", name))).default as RestOperation[]))
).flat();
