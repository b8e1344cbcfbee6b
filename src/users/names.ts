import { Prisma } from "../generated/prisma/client.js";

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
