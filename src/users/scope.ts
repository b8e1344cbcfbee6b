import { defineScopeKind } from "../common/scope-kinds.js";
import { Prisma } from "../generated/prisma/client.js";

/**
 * `scope=member`, `scope_id` = a user's id: a member's own space. Only that member writes in it; its
 * private records are their creator's (nobody else belongs), and nobody but creators and administrators
 * manages them.
 */
export const MEMBER_SCOPE = defineScopeKind({
  name: "member",
  exists: (userId) => Prisma.sql`EXISTS (SELECT 1 FROM users WHERE id = ${userId})`,
  writers: (userId) => Prisma.sql`SELECT ${userId}::int`,
  writeRefused: "Only that member can write in a member scope.",
});
