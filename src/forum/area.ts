import { z } from "zod";
import type { ForumPost } from "../generated/prisma/client.js";
import { accessLevels } from "../common/access.js";
import { defineArea } from "../common/area.js";
import { idOrZero, zeroOrOne } from "../common/validation.js";
import { accessField, createdByField, createdField, fieldTable, tagsField } from "../common/fields.js";
import { DEFAULT_SCOPE } from "../common/paging.js";
import { records } from "../common/records.js";
import { describeScopeKinds, scopeKindField } from "../common/scope-kinds.js";
import { scopedPath } from "../common/scopes.js";
import { threadFollowers, forumPostRecipients, describeForumPost } from "./activity.js";
import { authorShown, createForumPost, deleteForumPost, forumCounts, lastVisiblePost, updateForumPost } from "./service.js";

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
const fields = {
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
export const FORUM_FIELDS = fieldTable(fields);

/**
 * The forum's posts (src/common/area.ts). A thread is its starter post (`starter` 1, `parentId` 0, `threadId`
 * its own id): one record type serves both, and `forumPosts(threadsOnly: true)` lists threads
 * (docs/decisions.md). What is the forum's own — a reply takes its thread's category under the thread's lock,
 * moderation, the thread read and its counts — stays in src/forum/service.ts (`own`).
 */
export const FORUM_POSTS_AREA = defineArea({
  area: "forum",
  model: "ForumPost",
  plural: "forumPosts",
  label: "Forum post",
  description: "A forum post; a thread is its starter post (threadId equals id). Anonymous posts show no author to others.",
  policy: FORUM_POSTS,
  fields,
  shown: {
    id: true,
    title: true,
    comment: true,
    categoryId: true,
    sectionId: true,
    threadId: { description: "The thread starter's id (a starter's own).", rest: "thread" },
    parentId: { description: "The post this one replies to (0: a starter).", rest: "parent" },
    starter: { type: "Boolean", rest: false, description: "Whether this post starts its thread.", resolve: (post: ForumPost) => post.starter === 1 },
    scope: true,
    scopeId: true,
    state: "1 published as readers see it (the post and, for a reply, its thread starter), 0 not.",
    ownState: { description: "The post's own state (0 unpublished, 1 published), as its author or a moderator set it.", rest: false },
    access: { levels: FORUM_ACCESS, description: FORUM_ACCESS.description },
    anonymous: "1: the author is hidden from others.",
    sticky: true,
    closed: true,
    tags: true,
    url: { type: "String", resolve: (post: ForumPost) => scopedPath(post, "forum", String(post.threadId || post.id)) },
    created: true,
    createdById: {
      type: "Int",
      nullable: true,
      rest: "created_by",
      description: "The author; null to others when the post is anonymous.",
      resolve: (post: ForumPost, _args: never, ctx) => (authorShown(ctx, post) ? post.createdById : null),
    },
    modified: true,
    lastActivity: "Moves with replies (starters).",
    postCount: {
      type: "Int",
      rest: "posts",
      description: "A thread's posts the caller may see (kept as they are written, per access level and state); 0 for replies.",
      resolve: async (post: ForumPost, _args: never, ctx) => (post.starter ? (await forumCounts(ctx, post.categoryId, post.id)).posts : 0),
    },
    lastPostId: {
      type: "Int",
      nullable: true,
      description: "A thread's last post the caller may see (null for replies).",
      resolve: (post: ForumPost, _args: never, ctx) => (post.starter ? lastVisiblePost(ctx, "thread", post.id) : null),
    },
    createdBy: {
      type: "User",
      nullable: true,
      rest: false,
      select: { createdBy: true },
      description: "The author; null to others when the post is anonymous.",
      resolve: (post: ForumPost & { createdBy: unknown }, _args: never, ctx) => (authorShown(ctx, post) ? post.createdBy : null),
    },
  },
  // Who took a post down (a moderator: only a moderator puts it back), the service's own.
  hidden: ["unpublishedBy"],
  list: {
    description: "Forum posts the caller may see, filtered like GET /api/forum/list (threadsOnly: the threads).",
    sortColumns: { id: "id", created: "created", modified: "modified", last_activity: "lastActivity", title: "title" },
    defaults: { sort: "created", sortDir: "desc", limit: 25 },
    search: { in: "title or comment", fields: ["title", "comment"] },
    filters: {
      section: { type: "Int", rule: idOrZero, description: "All posts in all categories of the section (0: any).", default: 0, all: 0, column: "sectionId" },
      category: { type: "Int", rule: idOrZero, description: "All posts in the category (0: any).", default: 0, all: 0, column: "categoryId" },
      thread: { type: "Int", rule: idOrZero, description: "All posts of the thread (0: any).", default: 0, all: 0, column: "threadId" },
      parent: { type: "Int", rule: idOrZero, description: "Immediate replies of the post.", column: "parentId" },
      threadsOnly: { type: "Boolean", rule: z.boolean(), description: "true: only thread starter posts.", column: "starter", equals: 1 },
    },
  },
  read: { description: "One forum post the caller may see." },
  writes: {
    by: "users",
    forbidden: "Only the author, a group manager or an administrator can change this post.",
    names: ["title", "threadId", "categoryId", "parentId"],
    update: "Only the given fields change.",
    remove: "Deletes the post (a starter takes its replies); returns its id.",
  },
  own: { create: createForumPost, update: updateForumPost, remove: deleteForumPost },
  events: {
    postCreated: "A forum post was created (a thread starter when threadId equals its id); the record carries threadId, categoryId and parentId.",
    postUpdated: "A forum post's fields changed; `changed` names them (closed, sticky, state for moderation).",
    postDeleted: "A forum post was deleted (a thread starter takes its replies).",
  },
  // A new thread to its scope, its author and the users linked to its category; a reply to the thread's
  // participants and them (src/forum/activity.ts). A thread's replies follow its readership.
  activity: {
    describe: describeForumPost,
    recipients: forumPostRecipients,
    follows: { types: ["forum.postUpdated", "forum.postDeleted"], followers: threadFollowers },
  },
  rest: {
    versions: ["1.0"],
    create: { path: "/forum", task: "create a thread or a post in a thread" },
    list: {
      path: "/forum/list",
      task: "list threads",
      key: "threads",
      extra: { success: true },
      documented: { limit: true, start: "limitstart", search: true, section: true, category: true, threads_only: true, parent: true, thread: true, scope: true, scope_id: true },
    },
  },
});

/** The posts' list, as the service and the group plugin take it. */
export const FORUM_LIST = FORUM_POSTS_AREA.listSpec;
