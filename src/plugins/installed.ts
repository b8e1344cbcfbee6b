import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Loads every plugin file of src/plugins/installed/ (found by name: adding a plugin is adding its file,
 * docs/plugins.md). A module loads once, so each plugin registers once.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const extension = path.extname(fileURLToPath(import.meta.url));
for (const file of fs
  .readdirSync(path.join(here, "installed"))
  .filter((name) => name.endsWith(extension) && !name.endsWith(`.test${extension}`) && !name.endsWith(".d.ts"))
  .sort()) {
  await import(path.join(here, "installed", file));
}
