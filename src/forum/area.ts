import { z } from "zod";
import { Prisma, type ForumPost } from "../generated/prisma/client.js";
import type { RequestContext } from "../common/context.js";
import { defineArea } from "../common/area.js";
import { badInput, conflict, forbidden } from "../common/errors.js";
import { idOrZero } from "../common/validation.js";
import { columnValues } from "../common/fields.js";
import { DEFAULT_SCOPE } from "../common/list-spec.js";
import { changedRecord, createdRecord, findVisible } from "../common/record-reads.js";
import { confinementSql, visibleSql } from "../common/visibility.js";
import { holdsRelationSql } from "../common/scope-kinds.js";
import { assertCanWriteInScope, conditionHolds, requireUser, resolveCreator, scopedPath } from "../common/scopes.js";
import { changesNothing, parseInput, type RawInput } from "../common/validation.js";
import { changeRecord, deleteRecordsWhere, createRecord, deleteRecord, inWriteTransaction } from "../common/write-path.js";
import { insertStatement, updateStatement } from "../common/write-statements.js";
import type { Selection } from "../common/row-reading.js";
import type { SqlClient } from "../db/sql.js";
import { sqlOf } from "../common/context.js";
import { FORUM_ACCESS, FORUM_CATEGORIES, FORUM_FIELDS, FORUM_POSTS, forumPostFields } from "./records.js";
import { threadFollowers, forumPostRecipients, describeForumPost } from "./activity.js";
import { authorShown, forumCounts, lastVisiblePost } from "./counts.js";

/**
 * The forum's posts (src/common/area.ts). A thread is its starter post (`starter` 1, `parentId` 0, `threadId`
 * its own id): one record type serves both, and `forumPosts(threadsOnly: true)` lists threads
 * (docs/decisions.md). What is the forum's own — a reply takes its thread's category under the thread's lock,
 * moderation — are its own writes (`own`, below this declaration, whose written records they write through);
 * the thread read is src/forum/service.ts's, its counts src/forum/counts.ts's, who sees a post and its fields
 * src/forum/records.ts's.
 */
export const FORUM_POSTS_AREA = defineArea({
  area: "forum",
  model: "ForumPost",
  plural: "forumPosts",
  label: "Forum post",
  description: "A forum post; a thread is its starter post (threadId equals id). Anonymous posts show no author to others.",
  policy: FORUM_POSTS,
  fields: forumPostFields,
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

export type CreateForumPost = RawInput<typeof FORUM_FIELDS.create>;
export type UpdateForumPost = RawInput<typeof FORUM_FIELDS.update>;

type Query = { include?: Prisma.ForumPostInclude; select?: Prisma.ForumPostSelect };

// ---------------------------------------------------------------------------------------------------
// Writes: the area's own (`own` above)

interface LockedCategory {
  id: number;
  scope: string;
  scope_id: number;
  closed: number;
  section_id: number;
}

/** A scope's default category (the first marked default), held FOR SHARE against closing while a post goes in unless `lock` is false. */
export const defaultCategorySql = (scope: { scope: string; scopeId: number }, lock = true) =>
  Prisma.sql`SELECT c.id, c.scope, c.scope_id, c.closed, c.section_id FROM forum_categories c WHERE c.scope = ${scope.scope} AND c.scope_id = ${scope.scopeId} AND c.is_default = 1 ORDER BY c.id LIMIT 1${lock ? Prisma.sql` FOR SHARE` : Prisma.empty}`;

/**
 * A scope's default category, made with its "general" section on the scope's first post with category_id 0
 * (the site's is seeded by the migration), inside the post's transaction: a post the scope refuses takes
 * them back with it.
 */
async function defaultCategory(tx: RequestContext, scope: { scope: string; scopeId: number }): Promise<LockedCategory | undefined> {
  const sql = sqlOf(tx);
  await sql.query(
    Prisma.sql`INSERT INTO forum_sections (alias, title, scope, scope_id) VALUES ('general', 'General', ${scope.scope}, ${scope.scopeId}) ON CONFLICT (scope, scope_id, alias) DO NOTHING`,
  );
  await sql.query(
    Prisma.sql`INSERT INTO forum_categories (section_id, alias, title, scope, scope_id, is_default)
               SELECT s.id, 'general', 'General', s.scope, s.scope_id, 1 FROM forum_sections s WHERE s.scope = ${scope.scope} AND s.scope_id = ${scope.scopeId} AND s.alias = 'general'
               AND NOT EXISTS (SELECT 1 FROM forum_categories c WHERE c.scope = s.scope AND c.scope_id = s.scope_id AND c.is_default = 1)
               ON CONFLICT (scope, scope_id, alias) DO UPDATE SET is_default = 1`, // a "general" made by hand, and no default: it becomes the default
  );
  const [category] = await sql.query<LockedCategory>(
    defaultCategorySql(scope),
  );
  return category;
}

const CLOSED_CATEGORY = "This category is closed to new posts.";
const CLOSED_THREAD = "This thread is closed to new posts.";

/**
 * Creates a thread (thread 0) or a reply. A reply must belong to the thread it names (400 naming `thread`
 * or `parent`) and takes its category and scope from the thread; a thread takes its scope from its category
 * (category 0: the default category of the requested scope). A closed thread or category is 409, nothing stored.
 */
export async function createForumPost(ctx: RequestContext, input: CreateForumPost, query: Query = {}): Promise<ForumPost> {
  const user = requireUser(ctx);
  const data = parseInput(FORUM_FIELDS.create, input);
  const createdById = await resolveCreator(ctx, data.createdBy, user.id);
  const threadId = Number(data.thread ?? "0");
  const parentId = data.parent ?? 0;
  const id = await inWriteTransaction(ctx, async (tx) => {
    const sql = sqlOf(tx);
    let category: LockedCategory | undefined;
    let thread: Pick<ForumPost, "id" | "categoryId" | "closed"> | null = null;
    let parent = parentId;
    let startingThread = threadId;
    // A parent the caller may not read is answered as one that does not exist (its thread's id is not told).
    const visibleParent = async () => (parent ? await findVisible<ForumPost>(tx, FORUM_POSTS, parent, { select: { id: true, threadId: true } }) : null);
    if (!startingThread && parent) {
      const found = await visibleParent();
      if (!found) throw badInput("parent", `Post ${parent} does not exist.`);
      startingThread = found.threadId;
    }
    if (startingThread) {
      // The thread, visible to the caller (the rule findVisible reads by), held against closing while the
      // reply goes in: one statement, not a lock and then a read of every column (a fifth of a reply's
      // statements). FOR NO KEY UPDATE, not FOR SHARE: the reply's trigger updates the thread's row
      // (last_activity), and two replies that each held it shared would each wait for the other's share to
      // update it (a deadlock: all but one 503).
      const [visible] = await sql.query<Pick<ForumPost, "id" | "categoryId" | "closed">>(
        Prisma.sql`SELECT t.id, t.category_id AS "categoryId", t.closed FROM forum_posts t
          WHERE t.id = ${startingThread} AND t.starter = 1 AND ${visibleSql(ctx.db, FORUM_POSTS, ctx.viewer)} AND ${confinementSql(tx, FORUM_POSTS)}
          FOR NO KEY UPDATE OF t`,
      );
      thread = visible ?? null;
      if (!thread) throw badInput("thread", `Thread ${startingThread} does not exist.`);
      if (parent) {
        const found = await visibleParent();
        if (!found || found.threadId !== thread.id) throw badInput("parent", `Post ${parent} is not in thread ${thread.id}.`);
      } else parent = thread.id;
      [category] = await sql.query<LockedCategory>(Prisma.sql`SELECT id, scope, scope_id, closed, section_id FROM forum_categories WHERE id = ${thread.categoryId} FOR SHARE`);
      if (thread.closed) throw conflict("thread", CLOSED_THREAD);
    } else {
      const requested = data.categoryId ?? 0;
      const scope = { scope: data.scope ?? DEFAULT_SCOPE.scope, scopeId: data.scopeId ?? DEFAULT_SCOPE.scopeId };
      // The scope's default category is looked up (or made) only for those who may write there: an outsider's
      // 409 for a closed one told that a hidden group exists, and a refused first post made the default first.
      if (!requested) await assertCanWriteInScope(tx, scope.scope, scope.scopeId);
      [category] = await sql.query<LockedCategory>(
        requested
          ? Prisma.sql`SELECT c.id, c.scope, c.scope_id, c.closed, c.section_id FROM forum_categories c WHERE c.id = ${requested} AND ${visibleSql(ctx.db, FORUM_CATEGORIES, ctx.viewer, "c")} FOR SHARE`
          : defaultCategorySql(scope),
      );
      if (!category && !requested) category = await defaultCategory(tx, scope);
      if (!category) throw badInput("category_id", `Category ${requested} does not exist.`);
    }
    if (category!.closed) throw conflict("category_id", CLOSED_CATEGORY);
    const starter = thread ? 0 : 1;
    const values = columnValues(FORUM_FIELDS, { ...data, parent: thread ? parent : 0 }, "create");
    // Starting a thread pinned or closed is moderation, as changing it later is.
    if (starter && (values.sticky === 1 || values.closed === 1) && !(await moderates(tx, category!.scope, category!.scope_id))) {
      throw forbidden(MODERATORS_ONLY);
    }
    const created = await createRecord<ForumPost>(tx, FORUM_POSTS_AREA.writesOf, {
      event: FORUM_POSTS_AREA.eventsNamed.postCreated,
      scope: { scope: category!.scope, scopeId: category!.scope_id },
      inserted: Prisma.sql`created AS (${insertStatement(tx, FORUM_POSTS, {
        ...values,
        scope: category!.scope,
        scopeId: category!.scope_id,
        categoryId: category!.id,
        sectionId: category!.section_id,
        threadId: thread?.id ?? 0,
        starter,
        sticky: starter ? values.sticky : 0,
        closed: starter ? values.closed : 0,
        createdById,
      })})`,
    });
    return created!.id;
  });
  return createdRecord<ForumPost>(ctx, FORUM_POSTS, id, query as Selection);
}

const MODERATION = ["sticky", "closed", "state"] as const;
const MODERATORS_ONLY = "Only a group manager or an administrator closes or pins a thread.";

/** Whether the caller manages the scope (group managers) or administers the site. */
async function moderates(ctx: RequestContext, scope: string, scopeId: number): Promise<boolean> {
  const user = ctx.viewer.user;
  if (!user) return false;
  if (user.isAdmin) return true;
  return conditionHolds(ctx, holdsRelationSql("managers", scope, Prisma.sql`${scopeId}::int`, user.id, { lock: true }));
}

/**
 * Authors edit their posts; moderation (sticky, closed, state) is for group managers and administrators
 * (authors may still unpublish and republish their own posts through `state`). sticky/closed apply to starters only.
 */
export async function updateForumPost(ctx: RequestContext, id: number, input: UpdateForumPost, query: Query = {}): Promise<ForumPost | null> {
  requireUser(ctx);
  const data = parseInput(FORUM_FIELDS.update, input);
  await changeRecord<ForumPost>(ctx, FORUM_POSTS_AREA.writesOf, id, {
    event: FORUM_POSTS_AREA.eventsNamed.postUpdated,
    lockFirst: (tx) => lockThreadOfReply(tx, id),
    async change(tx, record) {
      if (changesNothing(data)) return { row: record, changed: [] };
      const moderating = MODERATION.filter((field) => field !== "state" && data[field] != null && data[field] !== record[field]);
      const user = tx.viewer.user!;
      // Who unpublished a post decides who republishes it: an author republishes what they unpublished
      // themselves, never what a moderator took down (`unpublishedBy`).
      let unpublishedBy: number | null | undefined;
      if (data.state != null && data.state !== record.ownState) {
        const moderator = await moderates(tx, record.scope, record.scopeId);
        const author = record.createdById === user.id;
        if (!author && !moderator) throw forbidden("Only the author, a group manager or an administrator publishes or unpublishes a post.");
        if (data.state === 1 && record.unpublishedBy != null && !moderator) throw forbidden("A moderator unpublished this post: only a group manager or an administrator republishes it.");
        unpublishedBy = data.state === 0 && !author ? user.id : null;
      }
      if (moderating.length && !(await moderates(tx, record.scope, record.scopeId))) throw forbidden(MODERATORS_ONLY);
      // Moderators moderate what a post says, not who said it: unmasking an anonymous author is theirs alone.
      if (data.anonymous != null && data.anonymous !== record.anonymous && record.createdById !== user.id && !user.isAdmin) {
        throw forbidden("Only the author or an administrator can change anonymous.");
      }
      if (!record.starter && (data.sticky === 1 || data.closed === 1)) throw badInput(data.sticky === 1 ? "sticky" : "closed", "applies only to thread starter posts");
      const createdBy = await resolveCreator(tx, data.createdBy, record.createdById);
      // Through the write path's update, so its event names the fields that changed.
      return { update: updateStatement(tx, FORUM_POSTS, id, { ...columnValues(FORUM_FIELDS, { ...data, createdBy }, "update"), ...(unpublishedBy !== undefined ? { unpublishedBy } : {}) }) };
    },
  });
  return changedRecord<ForumPost>(ctx, FORUM_POSTS, id, query as Selection);
}

/**
 * A reply's change or deletion first locks its thread, FOR NO KEY UPDATE as a new reply does: a moderator's
 * change to the thread holds the thread, then its counts, then updates its replies, so a reply locked first
 * and then waiting for the counts deadlocked with it (a post never changes thread, so the unlocked read of
 * `thread_id` stays true).
 */
const lockThreadOfReply = (tx: RequestContext & { tx: SqlClient }, id: number) =>
  tx.tx.query(Prisma.sql`SELECT t.id FROM forum_posts p JOIN forum_posts t ON t.id = p.thread_id WHERE p.id = ${id} AND p.starter = 0 FOR NO KEY UPDATE OF t`);

/** Moderation shortcuts (GraphQL): close, pin, publish state. */
export const closeForumThread = (ctx: RequestContext, id: number, closed: boolean, query: Query = {}) => updateForumPost(ctx, id, { closed: closed ? 1 : 0 }, query);
export const pinForumThread = (ctx: RequestContext, id: number, sticky: boolean, query: Query = {}) => updateForumPost(ctx, id, { sticky: sticky ? 1 : 0 }, query);
export const publishForumPost = (ctx: RequestContext, id: number, published: boolean, query: Query = {}) => updateForumPost(ctx, id, { state: published ? 1 : 0 }, query);

/** Deletes a post (a starter takes its replies): its author, a group manager or an administrator. */
export async function deleteForumPost(ctx: RequestContext, id: number): Promise<number> {
  return deleteRecord(ctx, FORUM_POSTS_AREA.writesOf, id, FORUM_POSTS_AREA.eventsNamed.postDeleted, {
    lockFirst: (tx) => lockThreadOfReply(tx, id),
    // Its replies first, each with its own deleted event (the trigger would take them silently).
    before: (tx, locked) => (locked.starter ? deleteRecordsWhere(tx, FORUM_POSTS_AREA.writesOf, { threadId: id, starter: 0 }, FORUM_POSTS_AREA.eventsNamed.postDeleted) : Promise.resolve()),
  });
}

