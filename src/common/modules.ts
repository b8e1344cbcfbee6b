import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The module files of `folder`, next to the module at `moduleUrl` (its `import.meta.url`), sorted by name
 * so the order never depends on the file system: those with that module's own extension (`.ts` under tsx
 * and vitest, `.js` once built), without tests and declaration files. What registries found by file name
 * import (the facade's rows, group plugins, plugins), so adding one edits no shared file.
 */
export function moduleFiles(moduleUrl: string, folder: string): string[] {
  const here = path.dirname(fileURLToPath(moduleUrl));
  const extension = path.extname(fileURLToPath(moduleUrl));
  return fs
    .readdirSync(path.join(here, folder))
    .filter((name) => name.endsWith(extension) && !name.endsWith(`.test${extension}`) && !name.endsWith(".d.ts"))
    .sort()
    .map((name) => path.join(here, folder, name));
}
