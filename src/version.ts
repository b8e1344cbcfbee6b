import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * This package's name and version, read from its package.json. Found by walking up from this file,
 * because the file runs from src/ (tsx, tests) and from dist/src/ (npm start, the image) alike.
 */
function readPackage(): { name: string; version: string } {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = path.join(dir, "package.json");
    if (fs.existsSync(candidate)) {
      const parsed = JSON.parse(fs.readFileSync(candidate, "utf8")) as { name?: string; version?: string };
      if (parsed.name === "hubgraph" && parsed.version) return { name: parsed.name, version: parsed.version };
    }
    const parent = path.dirname(dir);
    if (parent === dir) return { name: "hubgraph", version: "unknown" };
    dir = parent;
  }
}

export const PACKAGE = readPackage();
