// `npm start`'s prestart: generates the Prisma client and builds dist/ only when something it is built from
// changed since the last build (scripts/build-state.mjs), so a restart with no changes starts at once.
import { execFileSync } from "node:child_process";
import { isBuildStale, root } from "./build-state.mjs";

if (process.argv.includes("--force") || isBuildStale()) {
  const run = (...args) => execFileSync("npm", args, { cwd: root, stdio: "inherit" });
  run("exec", "--", "prisma", "generate");
  run("run", "build"); // ends by stamping dist/ as current
} else {
  console.log("dist/ is up to date (nothing changed since the last build)");
}
