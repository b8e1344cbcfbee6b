import { Prisma } from "../generated/prisma/client.js";
import { scopeAndActor } from "../common/activity-sources.js";
import type { Recipient } from "../common/activity-sources.js";
import { readershipFieldsOf } from "../common/policy.js";
import type { StoredEvent } from "../common/outbox.js";
import type { SqlClient } from "../db/sql.js";
import { FORUM_POSTS } from "./records.js";

/** The participants a reply's entry goes to at most (the thread's most recent posters). */
const MAX_PARTICIPANTS = 1000;
/**
 * The users linked to a category an entry goes to at most (the most recently linked): anyone may link
 * themselves to a category, and the consumer asks, per recipient, whether they may read the post.
 */
const MAX_LINKED = 1000;

/**
 * A starter's fields its replies' readers depend on (a reply's author reads it only where they read the thread):
 * the fields the posts' rule reads (src/common/policy.ts), but not its anonymity (a reply's is its own). Asked
 * when first needed.
 */
let threadReadership: string[] | undefined;

const isStarter = (payload: Record<string, unknown>, recordId: number) => Number(payload.threadId) === recordId;

/**
 * Forum posts in the activity feed (src/common/activity-sources.ts, declared in src/forum/area.ts; issue 15): a new
 * thread goes to its scope, its author and the users linked to its category; a reply to the thread's
 * participants (the authors of its posts, the most recent 1,000) and the users linked to the category (the
 * most recently linked 1,000). The consumer keeps only those who may read the post now, and an anonymous
 * post's entry names no author.
 */
export function describeForumPost(event: StoredEvent): string {
  return isStarter(event.payload, event.recordId)
    ? `Forum thread started: ${String(event.payload.title || event.recordId)}`
    : `Forum reply in thread ${String(event.payload.threadId)}${event.payload.title ? `: ${String(event.payload.title)}` : ""}`;
}

/**
 * A thread's replies are readable only where it is (a trigger keeps their state and level with it): their
 * entries follow the starter's changes of what that depends on too (not its anonymity: a reply's is its own;
 * not its deletion: each reply goes with its own deleted event).
 */
export function threadFollowers(event: StoredEvent): Prisma.Sql | null {
  threadReadership ??= readershipFieldsOf(FORUM_POSTS);
  return isStarter(event.payload, event.recordId) && event.changed.some((field) => threadReadership!.includes(field))
    ? Prisma.sql`SELECT id FROM forum_posts WHERE thread_id = ${event.recordId}`
    : null;
}

export async function forumPostRecipients(event: StoredEvent, tx: SqlClient): Promise<Recipient[]> {
  const categoryId = Number(event.payload.categoryId);
  const threadId = Number(event.payload.threadId);
  const linked = Prisma.sql`SELECT user_id FROM (SELECT user_id FROM forum_user_categories WHERE category_id = ${categoryId} ORDER BY created DESC, user_id LIMIT ${MAX_LINKED}) AS linked`;
  const starter = isStarter(event.payload, event.recordId);
  const rows = await tx.query<{ user_id: number }>(
    starter
      ? linked
      : // The participants kept by a trigger (forum_thread_participants), the most recent first through their
        // (thread_id, last_post_id) index: grouping the thread's posts read all of them (427 ms at 200,000).
        Prisma.sql`${linked} UNION SELECT user_id FROM (
          SELECT user_id FROM forum_thread_participants WHERE thread_id = ${threadId} ORDER BY last_post_id DESC LIMIT ${MAX_PARTICIPANTS}) AS participants`,
  );
  const members: Recipient[] = rows.map((row) => ({ scope: "member", scopeId: row.user_id }));
  return starter ? [...scopeAndActor(event), ...members] : [...members, ...(event.actorId ? [{ scope: "member", scopeId: event.actorId }] : [])];
}
