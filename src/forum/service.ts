import { Prisma, type ForumPost } from "../generated/prisma/client.js";
import type { RequestContext } from "../common/context.js";
import { badInput, forbidden, notFound } from "../common/errors.js";
import { DEFAULT_SCOPE, listedScope, pageWindow } from "../common/list-spec.js";
import { findVisible } from "../common/record-reads.js";
import { moderatedScopeSql, visibleSql } from "../common/visibility.js";
import { rowsStatement, type Selection } from "../common/row-reading.js";
import { scopeKind, secludedScopeSql } from "../common/scope-kinds.js";
import { requireUser } from "../common/scopes.js";
import { sqlOf } from "../common/context.js";
import { FORUM_CATEGORIES, FORUM_POSTS } from "./records.js";
import { countedSql, forumCounts } from "./counts.js";
import { defaultCategorySql, FORUM_LIST } from "./area.js";

type Query = { include?: Prisma.ForumPostInclude; select?: Prisma.ForumPostSelect };

// ---------------------------------------------------------------------------------------------------
// Parameters

const nonNegative = (parameter: string, value: number | null | undefined) => {
  if (value == null) return 0;
  if (!Number.isInteger(value) || value < 0 || value > 2_147_483_647) throw badInput(parameter, "must be a non-negative integer");
  return value;
};

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
    Prisma.sql`WITH found AS (SELECT c.id FROM forum_categories c WHERE c.id = ANY(${ids}::int[]) AND ${visibleSql(ctx.db, FORUM_CATEGORIES, ctx.viewer, "c")} FOR KEY SHARE OF c),
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
