#!/usr/bin/env -S node --liftoff-only
// --liftoff-only (here, in `npm run cli` and in test/built.ts): a command is short, so the embedded database's
// WebAssembly is compiled by V8's baseline compiler only. The optimising tier cost more CPU than it saved in
// a command's lifetime (`user list` on the embedded database, no server running: 3.3 s of CPU with it, 2.4 s
// without; wall 2.4 s → 1.9 s). V8 reads the flag when it starts, so it cannot be set from here. The server
// keeps the optimising tier (its statements run for hours: the contract suite took 10 % more CPU without it).
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
