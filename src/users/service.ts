import { z } from "zod";
import { Prisma, type PrismaClient, type User } from "../generated/prisma/client.js";
import { sqlOf, type RequestContext } from "../common/context.js";
import { decodeScalars } from "../common/row-reading.js";
import { modelInfo } from "../common/model.js";
import { records } from "../common/records.js";
import { claimIdempotencyKey } from "../common/key-claims.js";
import { NOW, returningScalars } from "../common/write-statements.js";
import { conflict, forbidden, unauthenticated } from "../common/errors.js";
import { parseInput } from "../common/validation.js";
import { requireUser } from "../common/scopes.js";
import { equalsIgnoringCase } from "../common/search.js";
import { hashPassword, verifyPassword } from "./passwords.js";
import type { Config } from "../config.js";
import { PASSWORD_POLICY, passwordWeakness } from "./password-policy.js";
import { uniqueViolation } from "../db/errors.js";
import { emailIsSql, signInAccountSql, usernameIsSql } from "./names.js";
import { sqlClientOf } from "../db/sql.js";

/** Length only; strength is judged with the account's names by passwordWeakness (src/users/password-policy.ts). */
const password = z.string().max(PASSWORD_POLICY.maxLength);

/** An account's rules, field by field: the area's field table (src/users/area.ts) declares its inputs with them. */
export const accountRules = {
  username: z.string().regex(/^[A-Za-z0-9_.-]{2,64}$/, "must be 2 to 64 letters, digits, dots, dashes or underscores"),
  email: z.email("must be an e-mail address").max(254),
  password,
  name: z.string().trim().min(1, "must not be empty").max(255),
  isAdmin: z.boolean(),
};

const newUserInput = z.object({ ...accountRules, isAdmin: accountRules.isAdmin.optional() }).superRefine((account, ctx) => {
  const weakness = passwordWeakness(account.password, account);
  if (weakness) ctx.addIssue({ code: "custom", path: ["password"], message: weakness });
});

export type NewUserInput = z.input<typeof newUserInput>;

/** The signed-in caller (401 for anonymous callers). */
export async function currentUser(ctx: RequestContext, query: { select?: Prisma.UserSelect; include?: Prisma.UserInclude } = {}) {
  return ctx.db.user.findUniqueOrThrow({ ...query, where: { id: requireUser(ctx).id } });
}

/**
 * Accounts, as the kit reads and writes their rows (src/users/area.ts: no list, no read by id, no events): no
 * scope, no access levels, none published (`id` is never 0): nobody but administrators would see one through
 * the kit's reads, which accounts do not have. Who sees an account's private fields is `privateFields` (self), which the type answers.
 */
export const USER_RECORDS = records({
  model: "User",
  scoped: false,
  published: { field: "id", value: 0 },
  counted: false,
  // E-mail address and administrator flag: to the account's owner and to administrators only.
  privateFields: { fields: ["email", "isAdmin"], shownTo: "self" },
});

/** Whether anyone, signed in or not, may create an account (an administrator always may): REGISTRATION=open. */
export const anyoneMayCreateAccounts = (config: Config): boolean => config.registration === "open";

/** Creates an account: administrators always may; anyone may when REGISTRATION=open. */
export async function createUser(ctx: RequestContext, input: NewUserInput): Promise<User> {
  const caller = ctx.viewer.user;
  if (!caller?.isAdmin) {
    if (!anyoneMayCreateAccounts(ctx.config)) {
      throw caller ? forbidden("Only administrators can create accounts.") : unauthenticated("Only administrators can create accounts.");
    }
    if (input.isAdmin) throw forbidden("Only administrators can create administrators.");
  }
  const data = parseInput(newUserInput, input);
  // Plain SQL through sqlOf(ctx), so an account can be made inside a write transaction (the demo seed's).
  const [clash] = await sqlOf(ctx).query<{ username: string }>(
    Prisma.sql`SELECT username FROM users WHERE ${usernameIsSql(data.username)} OR ${emailIsSql(data.email)} LIMIT 1`,
  );
  if (clash) {
    // Usernames are unique regardless of case (users.username_key).
    throw clash.username.toLowerCase() === data.username.toLowerCase()
      ? conflict("username", `The username "${data.username}" is taken.`)
      : conflict("email", "An account with this e-mail address exists.");
  }
  const passwordHash = await hashPassword(data.password);
  const [row] = await sqlOf(ctx)
    .query<Record<string, unknown>>(
      Prisma.sql`INSERT INTO users (username, email, name, is_admin, password_hash, created)
        VALUES (${data.username}, ${data.email}, ${data.name}, ${data.isAdmin ?? false}, ${passwordHash}, ${NOW})
        RETURNING ${returningScalars(ctx, USER_RECORDS)}`,
    )
    .catch((error: unknown) => {
      // A concurrent sign-up took the name or address between the check above and this insert.
      const clash = uniqueViolation(error);
      if (!clash) throw error;
      throw clash.fields.includes("email")
        ? conflict("email", "An account with this e-mail address exists.")
        : conflict("username", `The username "${data.username}" is taken.`);
    });
  const user = decodeScalars<User>(modelInfo(ctx.db, "User"), row!);
  await claimIdempotencyKey(ctx, user.id);
  return user;
}

/** Replaces an account's password (the sign-up rule holds); sessions and tokens are the caller's business. */
export async function setPassword(db: PrismaClient, userId: number, newPassword: string): Promise<void> {
  const account = await db.user.findUniqueOrThrow({ where: { id: userId }, select: { username: true, email: true } });
  const valid = parseInput(
    z.object({ password }).superRefine((input, ctx) => {
      const weakness = passwordWeakness(input.password, account);
      if (weakness) ctx.addIssue({ code: "custom", path: ["password"], message: weakness });
    }),
    { password: newPassword },
  ).password;
  await db.user.update({ where: { id: userId }, data: { passwordHash: await hashPassword(valid) } });
}

/** The account a sign-in names (signInAccountSql: through indexes), with its password hash. */
async function accountSignedInAs(db: PrismaClient, login: string): Promise<User | null> {
  const [row] = await sqlClientOf(db).query<{ id: number }>(signInAccountSql(login));
  return row ? db.user.findUnique({ where: { id: Number(row.id) } }) : null;
}

const timingDecoy = hashPassword("timing decoy, never a real password");

/** Checks a username (or e-mail address) and password; null when they do not match an account. */
export async function findUserByCredentials(db: PrismaClient, login: string, password: string): Promise<User | null> {
  // No account name holds a NUL (PostgreSQL text cannot), and asking the database for one is an error.
  const user = login.includes("\u0000")
    ? null
    : await accountSignedInAs(db, login);
  // An unknown name costs the same argon2 work as a wrong password, so timing does not reveal accounts.
  if (!user) {
    await verifyPassword(await timingDecoy, password);
    return null;
  }
  return (await verifyPassword(user.passwordHash, password)) ? user : null;
}

/** Makes sure the configured administrator exists. An existing account keeps its password. */
export async function ensureAdministrator(
  db: PrismaClient,
  admin: { username: string; password: string; email?: string },
  log: (line: string) => void,
): Promise<void> {
  // Usernames are unique regardless of case: an `ADMIN` registered before is this account's name.
  const existing = await db.user.findFirst({ where: { username: equalsIgnoringCase(admin.username) } });
  if (!existing) {
    const email = admin.email ?? `${admin.username}@localhost`;
    const weakness = passwordWeakness(admin.password, { username: admin.username, email });
    if (weakness) throw new Error(`ADMIN_PASSWORD ${weakness}.`);
    await db.user.create({
      data: {
        username: admin.username,
        email,
        name: "Administrator",
        isAdmin: true,
        passwordHash: await hashPassword(admin.password),
      },
    });
    log(`created administrator "${admin.username}"`);
    return;
  }
  // Only the holder of ADMIN_PASSWORD can be made administrator: with open registration anyone could
  // otherwise register the configured name first and be promoted on the next start.
  if (!(await verifyPassword(existing.passwordHash, admin.password))) {
    log(`user "${admin.username}" exists with another password; it was neither changed nor made administrator`);
    return;
  }
  if (!existing.isAdmin) {
    await db.user.update({ where: { id: existing.id }, data: { isAdmin: true } });
    log(`made existing user "${admin.username}" an administrator`);
  }
}
