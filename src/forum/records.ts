import { z } from "zod";
import { accessLevels } from "../common/access.js";
import { zeroOrOne } from "../common/validation.js";
import { accessField, createdByField, createdField, fieldTable, tagsField } from "../common/fields.js";
import { DEFAULT_SCOPE } from "../common/list-spec.js";
import { records } from "../common/records.js";
import { describeScopeKinds, scopeKindField } from "../common/scope-kinds.js";

/** Forum access levels, as the API document numbers them: 1 public (the default), 2 registered users, 5 private. */
export const FORUM_ACCESS = accessLevels("ForumAccess", [
  { value: 1, level: "public" },
  { value: 2, level: "registered" },
  { value: 5, level: "private" },
], 1);

/**
 * Forum posts and who sees them. Published is `state`: the post's own state (`ownState`) and its thread starter's,
 * kept by a trigger, so a reply is never readable where its thread is not; a reply's access is raised to
 * its thread's by the same trigger.
 */
export const FORUM_POSTS = records({
  model: "ForumPost",
  scoped: true,
  published: { field: "state", value: 1 },
  access: FORUM_ACCESS,
  creator: "createdById",
  // An anonymous post's author is shown to them and administrators only, in its answers and its events.
  anonymous: "anonymous",
  // A reply's author reads it only where they may read its thread (issue 15: a reply is never readable where
  // its thread is not); a thread's starter has no parent.
  parent: { field: "threadId", root: { field: "starter", value: 1 } },
  // A group's managers moderate its forum: they see its unpublished and private posts (issue 15).
  moderatedBy: "managers",
});

/** The forum post's fields (the API document's "Forum post / thread"). */
export const forumPostFields = {
  categoryId: {
    type: "Int",
    rule: z.number().int().min(0),
    description: "The category; 0 (the default): the scope's default category. A reply takes its thread's.",
    default: 0,
    required: "create",
    only: "create",
    rest: { description: "Category ID (0: the scope's default category)." },
  },
  scope: {
    type: "String",
    rule: scopeKindField,
    description: { create: () => `${describeScopeKinds()}. Default "site"; a post takes its category's scope.` },
    default: DEFAULT_SCOPE.scope,
    required: "create",
    only: "create",
    rest: { description: () => `${describeScopeKinds()}.`, privacy: true },
  },
  scopeId: {
    type: "Int",
    rule: z.number().int().min(0),
    description: "Default 0.",
    default: DEFAULT_SCOPE.scopeId,
    required: "create",
    only: "create",
    rest: { description: "Scope object ID.", privacy: true },
  },
  title: { type: "String", rule: z.string().trim().max(255), description: "Entry title.", rest: { description: "Entry title." } },
  comment: { type: "String", rule: z.string().trim().min(1, "must not be empty").max(100_000), required: "create", rest: { description: "Entry content." } },
  created: createdField,
  createdBy: createdByField,
  state: {
    type: "Int",
    rule: zeroOrOne("must be 0 (unpublished) or 1 (published)"),
    description: "0 unpublished, 1 published. Default 1.",
    default: 1,
    column: "ownState",
    // Its default is published: a PUT (the group plugin's) that leaves it out keeps the stored state.
    rest: { description: "0 = unpublished, 1 = published.", privacy: true },
  },
  access: accessField(FORUM_ACCESS),
  anonymous: {
    type: "Int",
    rule: zeroOrOne("must be 0 or 1 (1: the author is shown to nobody but themselves and administrators)"),
    description: "1: commenter is anonymous. Only the author and administrators change it.",
    default: 0,
    // Left out of a PUT (the group plugin's), an anonymous post stays anonymous.
    rest: { description: "Commenter is anonymous (1) or not (0).", privacy: true },
  },
  parent: {
    type: "Int",
    rule: z.number().int().min(0),
    description: "The post this one replies to; 0: the thread starter.",
    default: 0,
    only: "create",
    column: "parentId",
    rest: { description: "ID of the post this post replies to." },
  },
  thread: {
    type: "String",
    rule: z.string().trim().regex(/^\d{1,9}$/, "must be a thread id (0 starts a new thread)"),
    description: "The thread; 0 starts a new one.",
    default: "0",
    only: "create",
    column: false,
    rest: { description: "ID of the thread the post belongs to; 0 starts a new thread." },
  },
  // Moderation: left out of a PUT, they keep their stored values (an author's edit of a closed thread would
  // otherwise reopen it, which only moderators may do; a moderator's edit would unpin it).
  sticky: { type: "Int", rule: zeroOrOne("must be 0 or 1 (thread starters only)"), description: "Thread is sticky (starters only; moderators set it).", default: 0, rest: { description: "Thread is sticky; applies only to thread starter posts.", privacy: true } },
  closed: { type: "Int", rule: zeroOrOne("must be 0 or 1 (thread starters only)"), description: "Thread is closed to new posts (starters only; moderators set it).", default: 0, rest: { description: "Thread is closed to new posts; applies only to thread starter posts.", privacy: true } },
  tags: tagsField,
} as const;

/**
 * The posts' inputs as the service parses them (the declaration's table is the same fields): made apart from
 * the declaration, whose own writes' types read it.
 */
export const FORUM_FIELDS = fieldTable(forumPostFields);

/**
 * Who sees a forum category (src/forum/structure.ts declares its area): declared here, apart from that
 * declaration, as a new post's category is read by it (src/forum/area.ts) and the categories' area deletes
 * their posts through the posts' area.
 */
export const FORUM_CATEGORIES = records({ model: "ForumCategory", scoped: true, published: { field: "published", value: 1 } });
