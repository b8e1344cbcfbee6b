import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { openDatabase } from "./database.js";
import { DumpBytes, templatePath } from "./embedded-template.js";
import { TEMPLATE_ENV } from "../../test/database-template.js";
import { temporaryFolders } from "../../test/temporary-folders.js";

// A new DATA_DIR's database is copied from the template in CACHE_DIR, as a database of its own; a damaged
// template costs only the time: the database is made the long way (initdb, every migration) and kept as the
// template (src/db/embedded-template.ts). The README's fresh clone makes its first template the long way.
// Not run here: a CACHE_DIR that cannot be written (logged, and the start goes on; another long way, ≈10 s
// of CPU) and CACHE_DIR=off (every new DATA_DIR the long way, as before the template).
const folder = temporaryFolders("hubgraph-template-");

/** Opens DATA_DIR `dataDir` with CACHE_DIR `cacheDir`, runs `use`, closes; returns what the start logged. */
async function withDatabase(dataDir: string, cacheDir: string, use: (query: (sql: string) => Promise<unknown[]>) => Promise<void> = async () => {}): Promise<string[]> {
  const lines: string[] = [];
  const db = await openDatabase({ dataDir, cacheDir, log: (line) => lines.push(line) });
  try {
    await use((sql) => db.prisma.$queryRawUnsafe(sql));
  } finally {
    await db.close();
  }
  return lines;
}

it("copies a new DATA_DIR's database from the template, each copy its own; a damaged template is made again the long way and kept", { timeout: 120_000 }, async () => {
  // The run's template (test/global-setup.ts made it in the default CACHE_DIR), in a cache folder of this test's.
  const cacheDir = folder();
  fs.copyFileSync(process.env[TEMPLATE_ENV.pgliteDump]!, templatePath(cacheDir));
  const deploymentOf = async (query: (sql: string) => Promise<unknown[]>) => ((await query("SELECT id::text AS id FROM deployment")) as { id: string }[])[0]!.id;

  let firstDeployment = "";
  const first = folder();
  // What a start killed while copying leaves beside the database folder is thrown away.
  fs.mkdirSync(path.join(first, "pglite.partial"));
  fs.writeFileSync(path.join(first, "pglite.partial", "PG_VERSION"), "17\n");
  const copied = await withDatabase(first, cacheDir, async (query) => {
    firstDeployment = await deploymentOf(query);
    await query("INSERT INTO users (username, email, name, password_hash) VALUES ('written-after', 'after@example.org', 'After', 'x')");
  });
  expect(copied).toEqual([`created the embedded database from the template in ${cacheDir}`]);
  // Another copy: nothing the first wrote, a deployment id of its own.
  expect(
    await withDatabase(folder(), cacheDir, async (query) => {
      expect(await query("SELECT 1 FROM users WHERE username = 'written-after'")).toEqual([]);
      expect(await deploymentOf(query)).not.toBe(firstDeployment);
    }),
  ).toEqual([`created the embedded database from the template in ${cacheDir}`]);
  // A database folder with files but no database in it is never overwritten: the start stops, saying so.
  const cluttered = folder();
  fs.mkdirSync(path.join(cluttered, "pglite"));
  fs.writeFileSync(path.join(cluttered, "pglite", "notes.txt"), "someone's");
  await expect(withDatabase(cluttered, cacheDir)).rejects.toThrow(`${path.join(cluttered, "pglite")} holds files but no database (no PG_VERSION): move them away and start again`);
  expect(fs.readFileSync(path.join(cluttered, "pglite", "notes.txt"), "utf8")).toBe("someone's");
  // An existing DATA_DIR is opened as it is.
  expect(await withDatabase(first, cacheDir, async (query) => expect(await query("SELECT 1 FROM users WHERE username = 'written-after'")).toHaveLength(1))).toEqual([]);

  // A damaged template costs the time: the database is made the long way (initdb, every migration) and kept
  // as the template in its place.
  fs.writeFileSync(templatePath(cacheDir), "not a tar file");
  const remade = await withDatabase(folder(), cacheDir);
  expect(remade[0]).toMatch(new RegExp(`^could not copy the template in ${cacheDir} \\(.+\\): making the database from nothing$`));
  expect(remade.filter((line) => line.startsWith("applying migration ")).length).toBeGreaterThan(30);
  expect(remade.at(-1)).toBe(`kept a copy of the new database as the template for the next new DATA_DIR (${templatePath(cacheDir)})`);
  expect(await withDatabase(folder(), cacheDir)).toEqual([`created the embedded database from the template in ${cacheDir}`]);
});

it("loads one dump into any number of in-memory databases: PGlite only reads it, so they share its bytes", async () => {
  const dump = new DumpBytes(fs.readFileSync(process.env[TEMPLATE_ENV.pgliteDump]!));
  const digest = async () => crypto.createHash("sha256").update(new Uint8Array(await dump.arrayBuffer())).digest("hex");
  const before = await digest();
  const first = await openDatabase({ initialDump: dump });
  try {
    await first.prisma.$queryRawUnsafe("INSERT INTO users (username, email, name, password_hash) VALUES ('in-the-first', 'first@example.org', 'First', 'x')");
    await first.prisma.$queryRawUnsafe("CHECKPOINT");
  } finally {
    await first.close();
  }
  expect(await digest()).toBe(before);
  const second = await openDatabase({ initialDump: dump });
  try {
    expect(await second.prisma.$queryRawUnsafe("SELECT 1 FROM users WHERE username = 'in-the-first'")).toEqual([]);
  } finally {
    await second.close();
  }
});
