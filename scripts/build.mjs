// `npm run build`: the server (src/ and rest-facade/, the generated Prisma client included) as JavaScript in
// dist/, run by `npm start` with plain node. Each TypeScript file is transpiled on its own by esbuild (no
// bundle: dist/ mirrors the sources, with source maps), in well under a second where tsc took 10 to 25 s of
// a first `npm start`; the types are checked by `npm run typecheck` (CI runs it on every change), not here.
// Then scripts/copy-assets.mjs copies what the server reads that is not TypeScript and stamps dist/ current.
import fs from "node:fs";
import path from "node:path";
import { build } from "esbuild";
import { root } from "./build-state.mjs";

/** An area's tests' declaration: `testing.ts`, or `<name>.testing.ts` (src/groups/plugins.testing.ts); it imports test/. */
const isTestDeclaration = (name) => name === "testing.ts" || name.endsWith(".testing.ts");

/** What the server is built from: every .ts under src/ and rest-facade/ but tests and the areas' test declarations. */
const sources = [];
const collect = (dir) => {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) collect(file);
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") && !entry.name.endsWith(".test.ts") && !isTestDeclaration(entry.name)) sources.push(file);
  }
};
process.chdir(root);
for (const dir of ["src", "rest-facade"]) collect(dir);
fs.rmSync("dist", { recursive: true, force: true });
await build({
  entryPoints: sources,
  outdir: "dist",
  outbase: ".",
  format: "esm",
  platform: "node",
  target: "node20",
  sourcemap: true,
  logLevel: "warning",
});
await import("./copy-assets.mjs");
