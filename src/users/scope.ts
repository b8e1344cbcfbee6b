import { defineScopeKind } from "../common/scope-kinds.js";
import { Prisma } from "../generated/prisma/client.js";

/**
 * `scope=member`, `scope_id` = a user's id: a member's own space. Only that member writes in it; its
 * private records are their creator's (nobody else belongs), and nobody but creators and administrators
 * manages them.
 */
export const MEMBER_SCOPE = defineScopeKind({
  name: "member",
  // FOR KEY SHARE, as the group kind's: a write putting a record into the member's scope holds the account
  // until it commits, so an account being deleted either waits for the write or is gone by the time the write
  // looks, and the write is refused (400 naming scopeId): no record is left in a deleted account's scope by a
  // create that raced the deletion (test/scope-write-check.test.ts, PostgreSQL).
  exists: (userId) => Prisma.sql`EXISTS (SELECT 1 FROM users WHERE id = ${userId} FOR KEY SHARE)`,
  // A member's scope id is their user id: they write in their own, and they are its one writer.
  writers: { scopesOf: (userId) => Prisma.sql`SELECT ${userId}::int`, usersOf: (scopeId) => Prisma.sql`SELECT ${scopeId}::int` },
  writeRefused: "Only that member can write in a member scope.",
});
