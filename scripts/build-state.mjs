// Whether dist/ is older than what it is built from, so `npm start` rebuilds only after a change and the
// CLI runs the compiled JavaScript only when it is current. The inputs: src/, rest-facade/ and prisma/
// (the Prisma client is generated from prisma/schema/ into src/generated/), the TypeScript settings, the
// lock file. dist/.build-stamp is written after a successful build; a newer input file means a rebuild.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const STAMP = path.join(root, "dist", ".build-stamp");
const INPUTS = ["src", "rest-facade", "prisma", "tsconfig.json", "package-lock.json", "scripts/build.mjs", "scripts/copy-assets.mjs"];

/** The newest modification time (ms) among `entry` and everything under it. */
function newest(entry) {
  let stat;
  try {
    stat = fs.statSync(entry);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs; // a deleted file changes its folder's time
  for (const name of fs.readdirSync(entry)) latest = Math.max(latest, newest(path.join(entry, name)));
  return latest;
}

export function isBuildStale() {
  let built;
  try {
    built = fs.statSync(STAMP).mtimeMs;
  } catch {
    return true;
  }
  return INPUTS.some((input) => newest(path.join(root, input)) > built);
}

export function markBuilt() {
  fs.mkdirSync(path.dirname(STAMP), { recursive: true });
  fs.writeFileSync(STAMP, `${new Date().toISOString()}\n`);
}
