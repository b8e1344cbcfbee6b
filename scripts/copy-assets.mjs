// `npm run build`, after esbuild (scripts/build.mjs): copies into dist/ what the built server reads at run time
// and is not TypeScript — every file under src/ and rest-facade/ that is not TypeScript (e.g. browser scripts, GraphQL
// documents), and the SQL migrations the server applies on start (src/db/migrate.ts finds them at
// ../../prisma/migrations from its own file, in src/ and in dist/src/ alike).
import fs from "node:fs";
import path from "node:path";
import { markBuilt } from "./build-state.mjs";

const notTypeScript = (source) => fs.statSync(source).isDirectory() || !source.endsWith(".ts");
for (const dir of ["src", "rest-facade"]) fs.cpSync(dir, path.join("dist", dir), { recursive: true, filter: notTypeScript });
fs.cpSync(path.join("prisma", "migrations"), path.join("dist", "prisma", "migrations"), { recursive: true });
// Last: dist/ is now current (scripts/build-state.mjs; `npm start` skips the build until an input changes).
markBuilt();
