import DataLoader from "dataloader";
import { Prisma, type ForumPost } from "../generated/prisma/client.js";
import type { RequestContext } from "../common/context.js";
import { badInput, conflict, forbidden, notFound } from "../common/errors.js";
import { DEFAULT_SCOPE, listedScope, pageWindow } from "../common/paging.js";
import { columnValues } from "../common/fields.js";
import { changedRecord, createdRecord, findVisible } from "../common/record-reads.js";
import { confinementSql, moderatedScopeSql, publishedSql, visibleSql } from "../common/visibility.js";
import { modelInfo } from "../common/model.js";
import { rowsStatement, type Selection } from "../common/row-reading.js";
import { callerClass, fold, policyOf, renderSql, ruleOnce } from "../common/policy.js";
import { belongsToRecordScopeSql, holdsRelationSql, scopeKind, secludedScopeSql } from "../common/scope-kinds.js";
import { assertCanWriteInScope, conditionHolds, requireUser, resolveCreator } from "../common/scopes.js";
import { changesNothing, parseInput, type RawInput } from "../common/validation.js";
import { changeRecord, deleteRecordsWhere, createRecord, deleteRecord, inWriteTransaction, insertStatement, updateStatement } from "../common/write-path.js";
import type { SqlClient } from "../db/sql.js";
import { authorShownTo, sqlOf } from "../common/context.js";
import { defineLoader } from "../common/loaders.js";
import { FORUM_CATEGORIES_AREA } from "./categories.js";
import { FORUM_ACCESS, FORUM_FIELDS, FORUM_LIST, FORUM_POSTS, FORUM_POSTS_AREA } from "./area.js";

export type CreateForumPost = RawInput<typeof FORUM_FIELDS.create>;
export type UpdateForumPost = RawInput<typeof FORUM_FIELDS.update>;

type Query = { include?: Prisma.ForumPostInclude; select?: Prisma.ForumPostSelect };

// ---------------------------------------------------------------------------------------------------
// Parameters

const nonNegative = (parameter: string, value: number | null | undefined) => {
  if (value == null) return 0;
  if (!Number.isInteger(value) || value < 0 || value > 2_147_483_647) throw badInput(parameter, "must be a non-negative integer");
  return value;
};

// ---------------------------------------------------------------------------------------------------
// Counts: kept by the forum_counts trigger per access level and state; each caller adds up the
// levels they qualify for (administrators every published post). One statement for all the keys a page asks.

export interface ForumCounts {
  threads: number;
  posts: number;
}

/**
 * The posts' rule (src/common/policy.ts) over a kept count or a post's level, in the scope (`scope`, `scopeId`):
 * whether the caller is counted the others' posts at level `access`, published where `published` is given — by
 * level, membership and seclusion as the rule reads them, and never more for moderating (docs/decisions.md:
 * moderators are counted as members) nor, for administrators, beyond the published posts of every level.
 */
function countedSql(ctx: RequestContext, access: Prisma.Sql, scope: Prisma.Sql, scopeId: Prisma.Sql, published?: Prisma.Sql): Prisma.Sql {
  const user = ctx.viewer.user;
  const member = user && !user.isAdmin ? belongsToRecordScopeSql(scope, scopeId, user.id) : null;
  const secluded = user?.isAdmin ? null : secludedScopeSql(scope, scopeId, user?.id ?? null);
  // Folded once per class of caller and what is asked (src/common/policy.ts, ruleOnce); rendered per call.
  const shape = `forum counted ${callerClass(user)} ${Boolean(published)} ${Boolean(member)} ${Boolean(secluded)}`;
  const rule = ruleOnce(FORUM_POSTS, shape, () => fold(policyOf(FORUM_POSTS).visible, (leaf) => {
    if (leaf === "signedIn") return user !== null;
    if (leaf === "published") return published ? undefined : true;
    if (leaf === "member") return user?.isAdmin ? true : member ? undefined : false;
    if (leaf === "secluded") return secluded ? undefined : false;
    if (typeof leaf === "object") return undefined;
    return false; // administrator, own, moderates: counted as anyone else; the caller's own posts are added apart
  }));
  return renderSql(rule, (leaf) => {
    if (leaf === "published") return published!;
    if (leaf === "member") return member!;
    if (leaf === "secluded") return secluded!;
    if (typeof leaf === "object") return Prisma.sql`${access} IN (${Prisma.join(leaf.level.flatMap((level) => FORUM_ACCESS.valuesOf(level)))})`;
    throw new Error(`the forum's counts do not ask ${leaf}`);
  }, { enclosed: true });
}

const countsLoader = defineLoader(
  (ctx) =>
    new DataLoader<string, ForumCounts>(async (keys) => {
      const pairs = keys.map((key) => key.split(":").map(Number) as [number, number]);
      const keyList = Prisma.join(pairs.map(([category, thread]) => Prisma.sql`(${category}, ${thread})`));
      const keysOf = (threads: boolean) => pairs.filter(([, thread]) => (thread !== 0) === threads);
      const valuesOf = (of: [number, number][]) => Prisma.sql`(VALUES ${Prisma.join(of.map(([category, thread]) => Prisma.sql`(${category}::int, ${thread}::int)`))}) AS k(category_id, thread_id)`;
      const user = ctx.viewer.user;
      // A scope secluded from the caller (a hidden group, to a non-member: the author of a thread there who
      // has left it) shows none of the others' posts: the kept counts count nothing of it. Administrators are
      // secluded from nothing.
      const secluded = user?.isAdmin ? null : secludedScopeSql(Prisma.sql`c.scope`, Prisma.sql`c.scope_id`, user?.id ?? null);
      const parts = [
        Prisma.sql`SELECT fc.category_id, fc.thread_id, fc.threads, fc.posts
                   FROM forum_counts fc JOIN forum_categories c ON c.id = fc.category_id
                   WHERE (fc.category_id, fc.thread_id) IN (${keyList}) AND ${countedSql(ctx, Prisma.sql`fc.access`, Prisma.sql`c.scope`, Prisma.sql`c.scope_id`, Prisma.sql`fc.state = 1`)}`,
      ];
      if (user && !user.isAdmin) {
        // The caller's own published posts the kept counts leave out, where the rule lets them read them:
        // in a secluded scope, and at levels they are not counted for (their private reply in a site
        // thread). A thread's through its (thread_id, created_by) index, as its page's total adds them
        // (threadTotal); a category's only where secluded (elsewhere its counts stay the levels' counts).
        const visible = visibleSql(ctx.db, FORUM_POSTS, ctx.viewer, "t");
        const own = Prisma.sql`t.created_by = ${user.id} AND ${publishedSql(modelInfo(ctx.db, FORUM_POSTS.model), FORUM_POSTS, "t", new Date())} AND ${visible}`;
        const threadKeys = keysOf(true);
        if (threadKeys.length) {
          const leftOut = Prisma.sql`NOT ${countedSql(ctx, Prisma.sql`t.access`, Prisma.sql`c.scope`, Prisma.sql`c.scope_id`)}`;
          parts.push(Prisma.sql`SELECT k.category_id, k.thread_id, 0, 1
                                FROM ${valuesOf(threadKeys)} JOIN forum_categories c ON c.id = k.category_id
                                  JOIN forum_posts t ON t.thread_id = k.thread_id AND t.category_id = k.category_id
                                WHERE ${own} AND ${leftOut}`);
        }
        const categoryKeys = keysOf(false);
        if (categoryKeys.length && secluded) {
          parts.push(Prisma.sql`SELECT k.category_id, 0, t.starter, 1
                                FROM ${valuesOf(categoryKeys)} JOIN forum_categories c ON c.id = k.category_id
                                  JOIN forum_posts t ON t.scope = c.scope AND t.scope_id = c.scope_id AND t.category_id = k.category_id
                                WHERE ${secluded} AND ${own}`);
        }
      }
      // Added up here: a key's rows are a few kept counts (one per level and state) and the caller's own posts.
      const rows = await sqlOf(ctx).query<{ category_id: number; thread_id: number; threads: number; posts: number }>(Prisma.join(parts, " UNION ALL "));
      const found = new Map<string, ForumCounts>();
      for (const row of rows) {
        const key = `${row.category_id}:${row.thread_id}`;
        const counts = found.get(key) ?? { threads: 0, posts: 0 };
        found.set(key, { threads: counts.threads + Number(row.threads), posts: counts.posts + Number(row.posts) });
      }
      return keys.map((key) => found.get(key) ?? { threads: 0, posts: 0 });
    }),
);

/** A category's counts (`thread` 0) or a thread's, as the caller may see them. */
export const forumCounts = (ctx: RequestContext, categoryId: number, threadId = 0) => countsLoader(ctx).load(`${categoryId}:${threadId}`);

const lastPostLoader = defineLoader(
  (ctx) =>
    new DataLoader<string, number | null>(async (keys) => {
      const pairs = keys.map((key) => key.split(":") as [string, string]);
      const visible = visibleSql(ctx.db, FORUM_POSTS, ctx.viewer, "t");
      // One index probe per key (the category's or thread's newest visible post), in one statement.
      const rows = await sqlOf(ctx).query<{ key: string; id: number | null }>(
        Prisma.sql`SELECT k.key, CASE WHEN k.kind = 'thread'
                     THEN (SELECT t.id FROM forum_posts t WHERE t.thread_id = k.ref AND ${visible} ORDER BY t.id DESC LIMIT 1)
                     ELSE (SELECT t.id FROM forum_posts t WHERE t.category_id = k.ref AND ${visible} ORDER BY t.id DESC LIMIT 1) END AS id
                   FROM (VALUES ${Prisma.join(pairs.map(([kind, ref]) => Prisma.sql`(${`${kind}:${ref}`}, ${kind}, ${Number(ref)}::int)`))}) AS k(key, kind, ref)`,
      );
      const found = new Map(rows.map((row) => [row.key, row.id]));
      return keys.map((key) => found.get(key) ?? null);
    }),
);

/** The id of the last post of a category or thread the caller may see (null: none). */
export const lastVisiblePost = (ctx: RequestContext, kind: "category" | "thread", id: number) => lastPostLoader(ctx).load(`${kind}:${id}`);

/** Anonymous posts name their author to the author and administrators only. */
export const authorShown = (ctx: RequestContext, post: Pick<ForumPost, "anonymous" | "createdById">) => authorShownTo(ctx.viewer, post.anonymous, post.createdById);

// ---------------------------------------------------------------------------------------------------
// Reading a thread: GET /forum/{thread}

export interface ThreadReadArgs {
  limit?: number | null;
  start?: number | null;
  section?: string | null;
  category?: string | null;
  state?: number | null;
  scope?: string | null;
  scopeId?: number | null;
  scopeSubId?: number | null;
  objectId?: number | null;
  startId?: number | null;
  startAt?: Date | null;
  sort?: string | null;
}

export interface ForumThreadPage {
  thread: ForumPost;
  posts: ForumPost[];
  total: number;
}

/**
 * The thread (its starter) and its page of replies the caller may see, with their exact total. `section`
 * and `category` (aliases) and a scope other than the site's must match the thread (404 otherwise);
 * `state` picks published (1) or unpublished (0) replies; `start_id` and `start_at` bound the page from
 * where the sort starts (newest: at or before; oldest: at or after).
 */
export async function readForumThread(ctx: RequestContext, id: number, args: ThreadReadArgs, query: Query = {}): Promise<ForumThreadPage> {
  const sort = args.sort ?? "newest";
  if (sort !== "newest" && sort !== "oldest") throw badInput("sort", 'must be "newest" or "oldest"');
  const state = args.state ?? 1;
  if (state !== 0 && state !== 1) throw badInput("state", "must be 0 (unpublished) or 1 (published)");
  const startId = nonNegative("start_id", args.startId);
  nonNegative("scope_sub_id", args.scopeSubId);
  nonNegative("object_id", args.objectId);
  const { take, skip } = pageWindow({ limit: args.limit, start: args.start }, FORUM_LIST.defaults.limit);
  const missing = () => notFound(`Forum thread ${id} not found.`);
  const thread = await findVisible<ForumPost>(ctx, FORUM_POSTS, id, query as Selection);
  if (!thread || !thread.starter) throw missing();
  const { scope, scopeId } = listedScope(args);
  scopeKind(scope);
  if ((scope !== DEFAULT_SCOPE.scope || scopeId !== DEFAULT_SCOPE.scopeId) && (thread.scope !== scope || thread.scopeId !== scopeId)) throw missing();
  if (args.category || args.section) {
    const [found] = await sqlOf(ctx).query<{ category: string; section: string }>(
      Prisma.sql`SELECT c.alias AS category, s.alias AS section FROM forum_categories c JOIN forum_sections s ON s.id = c.section_id WHERE c.id = ${thread.categoryId}`,
    );
    if (args.category && found?.category !== args.category) throw missing();
    if (args.section && found?.section !== args.section) throw missing();
  }
  const newest = sort === "newest";
  const direction = Prisma.raw(newest ? "DESC" : "ASC");
  const bounds = [
    // The thread's scope too: the page then walks the (scope, scope_id, thread_id, created, id) index in the
    // sort's order instead of sorting the thread's posts (src/forum/thread-plan.test.ts).
    Prisma.sql`t.scope = ${thread.scope}`,
    Prisma.sql`t.scope_id = ${thread.scopeId}`,
    Prisma.sql`t.thread_id = ${id}`,
    Prisma.sql`t.starter = 0`,
    Prisma.sql`t.own_state = ${state}`,
    visibleSql(ctx.db, FORUM_POSTS, ctx.viewer, "t"),
    ...(startId ? [newest ? Prisma.sql`t.id <= ${startId}` : Prisma.sql`t.id >= ${startId}`] : []),
    ...(args.startAt ? [newest ? Prisma.sql`t.created <= ${args.startAt}` : Prisma.sql`t.created >= ${args.startAt}`] : []),
  ];
  const where = Prisma.join(bounds, " AND ");
  const statement = rowsStatement<ForumPost>(ctx.db, FORUM_POSTS, query as Selection, {
    where,
    orderBy: Prisma.sql`t.created ${direction}, t.id ${direction}`,
    limit: take,
    offset: skip,
    viewer: ctx.viewer,
  });
  const sql = sqlOf(ctx);
  const [rows, total] = await Promise.all([
    sql.query<Record<string, unknown>>(statement.sql).then((found) => statement.finish(found)),
    threadTotal(ctx, thread, where, Boolean(startId || args.startAt || state !== 1)),
  ]);
  return { thread, posts: rows, total };
}

/**
 * The exact total of a thread page's replies (`where`, the page's conditions). Of a published thread's
 * published replies, from the kept counts: anonymous callers and administrators read only them; a signed-in
 * caller adds their own replies at levels they are not counted for (through the (thread_id, created_by)
 * index), a moderator of the thread's scope counts every level, and a thread read in a scope secluded from
 * the caller (their own, in a hidden group they left) counts its rows, in one statement. A range, unpublished
 * replies, or an unpublished thread (its author's, a moderator's view) count the rows on the thread's index.
 */
async function threadTotal(ctx: RequestContext, thread: ForumPost, where: Prisma.Sql, ranged: boolean): Promise<number> {
  const sql = sqlOf(ctx);
  if (ranged || thread.state !== 1) return (await sql.query<{ total: number }>(Prisma.sql`SELECT count(*)::int AS total FROM forum_posts t WHERE ${where}`))[0]!.total;
  const user = ctx.viewer.user;
  // The starter is counted too when it is published (it is): the replies are the rest.
  if (!user || user.isAdmin) return Math.max(0, (await forumCounts(ctx, thread.categoryId, thread.id)).posts - 1);
  const kept = (levels: Prisma.Sql) =>
    Prisma.sql`(SELECT coalesce(sum(fc.posts), 0) FROM forum_counts fc WHERE fc.category_id = ${thread.categoryId} AND fc.thread_id = ${thread.id} AND fc.state = 1 AND ${levels})`;
  const [scope, scopeId] = [Prisma.sql`${thread.scope}::text`, Prisma.sql`${thread.scopeId}::int`];
  const counted = (access: Prisma.Sql) => countedSql(ctx, access, scope, scopeId);
  const moderates = moderatedScopeSql(FORUM_POSTS, user.id, scope, scopeId) ?? Prisma.sql`FALSE`;
  // A thread its author reads in a hidden group they have left: the group's replies are secluded from them, counted or not.
  const secluded = secludedScopeSql(scope, scopeId, user.id) ?? Prisma.sql`FALSE`;
  const [row] = await sql.query<{ total: number }>(Prisma.sql`SELECT (CASE WHEN ${moderates} THEN ${kept(Prisma.sql`TRUE`)} - 1
      WHEN ${secluded} THEN (SELECT count(*) FROM forum_posts t WHERE ${where})
      ELSE ${kept(counted(Prisma.sql`fc.access`))} - (CASE WHEN ${counted(Prisma.sql`${thread.access}::int`)} THEN 1 ELSE 0 END)
         + (SELECT count(*) FROM forum_posts t WHERE t.thread_id = ${thread.id} AND t.created_by = ${user.id} AND t.starter = 0 AND t.own_state = 1 AND NOT ${counted(Prisma.sql`t.access`)})
      END)::int AS total`);
  return Math.max(0, row!.total);
}

// ---------------------------------------------------------------------------------------------------
// Writes

interface LockedCategory {
  id: number;
  scope: string;
  scope_id: number;
  closed: number;
  section_id: number;
}

/** A scope's default category (the first marked default), held FOR SHARE against closing while a post goes in unless `lock` is false. */
const defaultCategorySql = (scope: { scope: string; scopeId: number }, lock = true) =>
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
          ? Prisma.sql`SELECT c.id, c.scope, c.scope_id, c.closed, c.section_id FROM forum_categories c WHERE c.id = ${requested} AND ${visibleSql(ctx.db, FORUM_CATEGORIES_AREA.records, ctx.viewer, "c")} FOR SHARE`
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

// ---------------------------------------------------------------------------------------------------
// User–category links (2.0): a user links only themselves; administrators link anyone.

export interface UserCategoriesInput {
  userId?: number | null;
  categoryId?: number | null;
  categoriesIds?: unknown[] | null;
}

function linkTarget(ctx: RequestContext, input: UserCategoriesInput) {
  const user = requireUser(ctx);
  const userId = input.userId ?? 0;
  if (!Number.isInteger(userId) || userId < 0) throw badInput("user_id", "must be a user id (0: yourself)");
  const target = userId || user.id;
  if (target !== user.id && !user.isAdmin) throw forbidden("A user links only themselves to categories.");
  const listed = (input.categoriesIds ?? []).map((raw) => (typeof raw === "number" ? raw : typeof raw === "string" && /^\s*\d{1,10}\s*$/.test(raw) ? Number(raw) : NaN));
  if (listed.some((id) => !Number.isInteger(id) || id < 0 || id > 2_147_483_647)) throw badInput("categoriesIds", "must be category ids");
  const given = [...(input.categoryId != null ? [input.categoryId] : []), ...listed];
  if (given.some((id) => !Number.isInteger(id) || id < 0 || id > 2_147_483_647)) throw badInput("category_id", "must be a category id (0: the site's default category)");
  if (!given.length) throw badInput("category_id", "name at least one category");
  // A bounded request: more categories than a forum has in a page of its lists is no link anybody means.
  if (given.length > MAX_LINKED_CATEGORIES) throw badInput("categoriesIds", `name at most ${MAX_LINKED_CATEGORIES} categories at a time`);
  return { target, given };
}

const MAX_LINKED_CATEGORIES = 1000;

/** The categories named, 0 standing for the site's default category. */
async function categoryIds(ctx: RequestContext, given: number[]): Promise<number[]> {
  if (!given.includes(0)) return [...new Set(given)];
  const [found] = await sqlOf(ctx).query<{ id: number }>(
    defaultCategorySql(DEFAULT_SCOPE, false),
  );
  return [...new Set(given.map((id) => (id === 0 ? (found?.id ?? 0) : id)))];
}

/** Links the user to the categories they may see; answers the linked category ids. */
/** A user's link to a forum category (the original's forum_users_categories: e-mail about its posts). */
export interface ForumUserCategoryLink {
  userId: number;
  categoryId: number;
}

/** Links the user to the categories; answers the links, one per category (those that existed already included). */
export async function createForumUserCategories(ctx: RequestContext, input: UserCategoriesInput): Promise<ForumUserCategoryLink[]> {
  const { target, given } = linkTarget(ctx, input);
  const ids = await categoryIds(ctx, given);
  // One statement: the categories the caller may see and the user, held FOR KEY SHARE (a deletion racing the
  // link is waited for, and what it deleted then counts as missing), linked only when all are there: a missing
  // one stores nothing.
  const [row] = await sqlOf(ctx).query<{ found: number[]; user_found: boolean }>(
    Prisma.sql`WITH found AS (SELECT c.id FROM forum_categories c WHERE c.id = ANY(${ids}::int[]) AND ${visibleSql(ctx.db, FORUM_CATEGORIES_AREA.records, ctx.viewer, "c")} FOR KEY SHARE OF c),
                    target AS (SELECT id FROM users WHERE id = ${target} FOR KEY SHARE),
                    linked AS (INSERT INTO forum_user_categories (user_id, category_id)
                                 SELECT t.id, f.id FROM found f, target t WHERE (SELECT count(*) FROM found) = ${ids.length}
                                 ON CONFLICT DO NOTHING)
               SELECT COALESCE((SELECT array_agg(id) FROM found), '{}') AS found, EXISTS (SELECT 1 FROM target) AS user_found`,
  );
  const missing = ids.find((id) => !row!.found.includes(id));
  if (missing !== undefined) throw badInput("category_id", `Category ${missing} does not exist.`);
  if (!row!.user_found) throw badInput("user_id", `User ${target} does not exist.`);
  return ids.map((categoryId) => ({ userId: target, categoryId }));
}

/** Removes the user's links to the categories; answers the ids unlinked. */
export async function destroyForumUserCategories(ctx: RequestContext, input: UserCategoriesInput): Promise<number[]> {
  const { target, given } = linkTarget(ctx, input);
  const ids = await categoryIds(ctx, given);
  const rows = await sqlOf(ctx).query<{ category_id: number }>(
    Prisma.sql`DELETE FROM forum_user_categories WHERE user_id = ${target} AND category_id = ANY(${ids}::int[]) RETURNING category_id`,
  );
  return rows.map((row) => row.category_id);
}

