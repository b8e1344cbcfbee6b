import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import type { PGlite } from "@electric-sql/pglite";
import { migrationsFingerprint } from "./migrate.js";

/**
 * A new embedded database (an empty DATA_DIR) starts as a copy of one made before, instead of PGlite's
 * initdb (≈5 s of CPU, in a child process for its memory) and every migration (≈2 s). The first new
 * database of an install is made the long way and then dumped (PGlite's dumpDataDir) into CACHE_DIR as
 * the template; each later new DATA_DIR, on this install, is ready in about a second. The template is named
 * by PGlite's version and a fingerprint of the migrations, so a changed migration or another PGlite makes a
 * new one; it holds the migrated schema and the migrations' own rows, never anything a server wrote.
 * The test suite starts every test database from it too (test/global-setup.ts).
 */

const require = createRequire(import.meta.url);

/** PGlite's installed package folder: node_modules/@electric-sql/pglite. */
const pglitePackage = (() => {
  let dir = path.dirname(require.resolve("@electric-sql/pglite"));
  while (!fs.existsSync(path.join(dir, "package.json"))) dir = path.dirname(dir);
  return dir;
})();

const PGLITE_VERSION = (JSON.parse(fs.readFileSync(path.join(pglitePackage, "package.json"), "utf8")) as { version: string }).version;

/** CACHE_DIR's default: node_modules/.cache/hubgraph, beside the installed packages, as build tools keep theirs. */
export const DEFAULT_CACHE_DIR = path.join(pglitePackage, "..", "..", ".cache", "hubgraph");

const PREFIX = "embedded-template-";

/** Where the template for this PGlite and these migrations is kept. */
export const templatePath = (cacheDir: string) => path.join(cacheDir, `${PREFIX}pglite-${PGLITE_VERSION}-${migrationsFingerprint()}.tar`);

/**
 * A dump as PGlite's `loadDataDir` takes it (a Blob, of which it reads only `arrayBuffer()`), handing over the
 * bytes themselves: Node's own Blob reads itself back in 64 KiB chunks and joins them, ≈0.4 s of CPU for a
 * 44 MB dump, at every load (the test suite loads one per test server), and a copy per load cost ≈0.15 s more.
 * PGlite only reads the dump (it untars it, copying each file into its own file system), so every load
 * shares one buffer; src/db/embedded-template.test.ts loads one dump twice and checks it is unchanged.
 */
export class DumpBytes extends Blob {
  readonly #contents: ArrayBuffer;
  constructor(contents: Uint8Array) {
    super([]);
    const whole = contents.byteOffset === 0 && contents.byteLength === contents.buffer.byteLength && contents.buffer instanceof ArrayBuffer;
    this.#contents = whole ? (contents.buffer as ArrayBuffer) : (contents.buffer.slice(contents.byteOffset, contents.byteOffset + contents.byteLength) as ArrayBuffer);
  }
  override arrayBuffer(): Promise<ArrayBuffer> {
    return Promise.resolve(this.#contents);
  }
}

/** The template for this PGlite and these migrations, if one was made. */
export function readTemplate(cacheDir: string): Blob | undefined {
  try {
    return new DumpBytes(fs.readFileSync(templatePath(cacheDir)));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/**
 * Keeps a dump of `pglite` as the template: call it on a database just created and migrated, before anything
 * else writes to it. Written whole under a name of its own, then renamed (a reader never sees half a file;
 * two writers both finish), and templates of other migrations or PGlite versions are removed.
 */
export async function keepTemplate(pglite: PGlite, cacheDir: string): Promise<string> {
  const file = templatePath(cacheDir);
  // A folder that cannot be written is found out before the dump (44 MB in this process's memory).
  fs.mkdirSync(cacheDir, { recursive: true });
  fs.accessSync(cacheDir, fs.constants.W_OK);
  const dump = await pglite.dumpDataDir("none");
  const partial = `${file}.${process.pid}.partial`;
  try {
    fs.writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
    fs.renameSync(partial, file);
  } finally {
    fs.rmSync(partial, { force: true });
  }
  for (const other of fs.readdirSync(cacheDir)) {
    if (other.startsWith(PREFIX) && other.endsWith(".tar") && path.join(cacheDir, other) !== file) fs.rmSync(path.join(cacheDir, other), { force: true });
  }
  return file;
}

/**
 * What a copy must not share with the template or with other copies: the deployment id (its migration
 * draws one per database; REDIS_PREFIX's default may be derived from it).
 */
export async function makeCopyItsOwn(pglite: PGlite): Promise<void> {
  await pglite.exec(`UPDATE deployment SET id = gen_random_uuid()`);
}
