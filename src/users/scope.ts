import { defineScopeKind } from "../common/scope-kinds.js";
import { userExists } from "../common/scopes.js";

/**
 * `scope=member`, `scope_id` = a user's id: a member's own space. Only that member writes in it; its
 * private records are their creator's (nobody else belongs), and nobody but creators and administrators
 * manages them.
 */
export const MEMBER_SCOPE = defineScopeKind({
  name: "member",
  exists: userExists,
  mayWrite: async (_ctx, userId, user) => userId === user.id,
  writeRefused: "Only that member can write in a member scope.",
});
