import DataLoader from "dataloader";
import { Prisma, type ForumPost } from "../generated/prisma/client.js";
import type { RequestContext } from "../common/context.js";
import { publishedSql, visibleSql } from "../common/visibility.js";
import { modelInfo } from "../common/model.js";
import { callerClass, fold, policyOf, renderSql, ruleOnce } from "../common/policy.js";
import { belongsToRecordScopeSql, secludedScopeSql } from "../common/scope-kinds.js";
import { authorShownTo, sqlOf } from "../common/context.js";
import { defineLoader } from "../common/loaders.js";
import { FORUM_ACCESS, FORUM_POSTS } from "./records.js";

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
export function countedSql(ctx: RequestContext, access: Prisma.Sql, scope: Prisma.Sql, scopeId: Prisma.Sql, published?: Prisma.Sql): Prisma.Sql {
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

