import crypto from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import type { PrismaClient } from "../generated/prisma/client.js";
import { hashPassword, verifyPassword } from "../users/passwords.js";

/**
 * The first-run administrator: a database with no administrator, started without ADMIN_* variables, gets
 * one — `admin` with a random password — so the README's walk-through can sign in right after
 * `npm start`. The password is logged once and kept in DATA_DIR/admin-password (mode 0600, the bare
 * password, no line break) until it is changed; every start deletes the file once it no longer signs in.
 */

export const FIRST_RUN_USERNAME = "admin";
export const PASSWORD_FILE = "admin-password";

/** Any number; identifies this lock among the database's advisory locks. */
const FIRST_RUN_LOCK = 0x68756267; // "hubg"

export const passwordFileOf = (dataDir: string) => path.join(dataDir, PASSWORD_FILE);

/** How to change it, in the start-up output and the README. */
export const CHANGE_PASSWORD_HINT =
  `change it with: npm run cli -- user reset-password ${FIRST_RUN_USERNAME} --password-stdin` +
  ` (in the Docker image, which has no npm scripts: node dist/src/cli/main.js user reset-password ${FIRST_RUN_USERNAME} --password-stdin)`;

export interface FirstRunAdministrator {
  username: string;
  password: string;
  /** Where the password is kept until it is changed. */
  passwordFile: string;
}

/**
 * Creates the first-run administrator when the database has none. Several servers starting at once on
 * one PostgreSQL database serialise on a transaction-scoped advisory lock, so exactly one of them creates
 * it and the others find it. Returns what was created, or null when an administrator existed.
 */
export async function ensureFirstRunAdministrator(db: PrismaClient, dataDir: string): Promise<FirstRunAdministrator | null> {
  // 144 random bits, URL-safe: strong by any policy (zxcvbn scores it 4) and safe in a shell or form body.
  const password = crypto.randomBytes(18).toString("base64url");
  const passwordHash = await hashPassword(password);
  const username = await db.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT 1 AS locked FROM (SELECT pg_advisory_xact_lock(${FIRST_RUN_LOCK}::bigint)) AS lock`;
    if ((await tx.user.count({ where: { isAdmin: true } })) > 0) return null;
    // An ordinary account may already be called admin (open registration): take the next free name.
    const taken = new Set((await tx.user.findMany({ where: { username: { startsWith: FIRST_RUN_USERNAME, mode: "insensitive" } }, select: { username: true } })).map((user) => user.username.toLowerCase()));
    let name = FIRST_RUN_USERNAME;
    for (let n = 2; taken.has(name); n += 1) name = `${FIRST_RUN_USERNAME}${n}`;
    await tx.user.create({ data: { username: name, email: `${name}@localhost`, name: "Administrator", isAdmin: true, passwordHash } });
    return name;
  });
  if (!username) return null;
  const passwordFile = passwordFileOf(dataDir);
  await fs.mkdir(dataDir, { recursive: true });
  // Written owner-only from the start (no moment where the file is readable by others); an old file goes first.
  await fs.rm(passwordFile, { force: true });
  await fs.writeFile(passwordFile, password, { mode: 0o600, flag: "wx" });
  return { username, password, passwordFile };
}

/**
 * Deletes DATA_DIR/admin-password once its password no longer signs in as its account (it was changed,
 * or the account is gone). Returns true when it deleted the file.
 */
export async function forgetChangedFirstRunPassword(db: PrismaClient, dataDir: string): Promise<boolean> {
  const passwordFile = passwordFileOf(dataDir);
  let password: string;
  try {
    password = await fs.readFile(passwordFile, "utf8");
  } catch {
    return false;
  }
  // Administrators are few; the file's account is one of them unless it was demoted (then it goes too).
  const accounts = await db.user.findMany({ where: { isAdmin: true }, select: { passwordHash: true }, take: 100 });
  for (const account of accounts) if (await verifyPassword(account.passwordHash, password)) return false;
  await fs.rm(passwordFile, { force: true });
  return true;
}
