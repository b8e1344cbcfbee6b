#!/usr/bin/env node
// The `hubgraph` bin (and `npm run cli`): the compiled CLI in dist/ when it is current (`npm start` and
// `npm run build` make it), which starts in a fraction of a second; otherwise the TypeScript source through
// tsx, which takes seconds but needs no build.
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { isBuildStale, root } from "../../scripts/build-state.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
if (!isBuildStale()) {
  await import(pathToFileURL(path.join(root, "dist", "src", "cli", "main.js")).href);
} else {
  const { register } = await import("tsx/esm/api");
  register();
  await import(pathToFileURL(path.join(here, "main.ts")).href);
}
