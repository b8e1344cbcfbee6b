import { Prisma } from "../generated/prisma/client.js";

/**
 * How an account is named, as SQL over `users`: a username or an e-mail address, each regardless of case —
 * the rule sign-up's uniqueness check (createUser) and invitations (src/groups/service.ts) use; sign-in asks
 * the same of e-mail addresses through Prisma (`equalsIgnoringCase`). Usernames through their unique
 * lower-cased copy (users.username_key).
 */
export const usernameIsSql = (text: string): Prisma.Sql => Prisma.sql`username_key = lower(${text})`;
export const emailIsSql = (text: string): Prisma.Sql => Prisma.sql`lower(email) = lower(${text})`;
