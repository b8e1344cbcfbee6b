import { Prisma } from "../generated/prisma/client.js";
import type { RequestContext } from "../common/context.js";
import { ApiError } from "../common/errors.js";
import type { SqlClient } from "../db/sql.js";

/**
 * How an account is named, as SQL over `users`: a username or an e-mail address, each regardless of case —
 * the rule sign-up's uniqueness check (createUser), invitations (src/groups/service.ts) and sign-in
 * (signInAccountSql) use. Each through its lower-cased copy, kept by a trigger: usernames through
 * users.username_key (unique), e-mail addresses through users.email_key (indexed; test/user-lookups.test.ts).
 */
export const usernameIsSql = (text: string): Prisma.Sql => Prisma.sql`username_key = lower(${text})`;
export const emailIsSql = (text: string): Prisma.Sql => Prisma.sql`email_key = lower(${text})`;

/**
 * The account a sign-in names (the password grant, the session form, and their rate limit): the username
 * as written, or the e-mail address regardless of case (emailIsSql), as a statement answering its id.
 */
export const signInAccountSql = (login: string): Prisma.Sql =>
  Prisma.sql`SELECT id FROM users WHERE username = ${login} OR ${emailIsSql(login)} ORDER BY id LIMIT 1`;

/**
 * The account a manager's action names (a group's member, a course's learner): a username or an email address,
 * each regardless of case (the sign-up and sign-in rule above); existing accounts only, else 404 naming
 * `parameter`. Asked inside the write, after the caller is known to manage what it concerns: nobody else learns
 * from the answer whether an account exists.
 */
export async function accountNamed(tx: RequestContext & { tx: SqlClient }, text: string, parameter = "user"): Promise<number> {
  const [row] = await tx.tx.query<{ id: number }>(Prisma.sql`SELECT id FROM users WHERE ${usernameIsSql(text)} OR ${emailIsSql(text)} ORDER BY id LIMIT 1`);
  if (!row) throw new ApiError(404, `No account with the username or email ${text}.`, [{ parameter, message: "no account with this username or email" }]);
  return Number(row.id);
}
