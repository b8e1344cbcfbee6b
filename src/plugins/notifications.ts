import { Prisma } from "../generated/prisma/client.js";
import type { RequestContext } from "../common/context.js";
import { pageWindow, type Page, type PageArgs } from "../common/list-spec.js";
import { requireUser } from "../common/scopes.js";
import { parseId } from "../common/validation.js";
import { sqlOf } from "../common/context.js";
import { decodeTimestamp } from "../db/sql.js";

/**
 * Notifications plugins write (src/plugins/installed/groups-joinnotify.ts), each for one user: a user reads
 * their own only — administrators too (they are nobody's inbox but their own). Newest first, paged; `unread`
 * filters. Marking read is the reader's own state, not a record of the site: one UPDATE of their rows, no
 * domain event (docs/decisions.md, "Plugins").
 */
export interface NotificationRow {
  id: number;
  userId: number;
  eventId: string;
  type: string;
  plugin: string;
  payload: unknown;
  readAt: Date | null;
  created: Date;
}

const COLUMNS = Prisma.sql`id, user_id AS "userId", event_id::text AS "eventId", type, plugin, payload, read_at AS "readAt", created`;
const decode = (row: Record<string, unknown>): NotificationRow =>
  ({ ...row, readAt: row.readAt ? decodeTimestamp(row.readAt as string) : null, created: decodeTimestamp(row.created as string) }) as NotificationRow;

export function listNotifications(ctx: RequestContext, args: PageArgs & { unread?: boolean | null }): Page<NotificationRow> {
  const user = requireUser(ctx);
  const { take, skip } = pageWindow(args);
  const where = Prisma.sql`user_id = ${user.id}${args.unread === true ? Prisma.sql` AND read_at IS NULL` : args.unread === false ? Prisma.sql` AND read_at IS NOT NULL` : Prisma.empty}`;
  const sql = sqlOf(ctx);
  return {
    items: async () =>
      (await sql.query<Record<string, unknown>>(Prisma.sql`SELECT ${COLUMNS} FROM notifications WHERE ${where} ORDER BY created DESC, id DESC LIMIT ${take} OFFSET ${skip}`)).map(decode),
    total: async () => Number((await sql.query<{ total: number }>(Prisma.sql`SELECT count(*)::int AS total FROM notifications WHERE ${where}`))[0]!.total),
  };
}

/** Marks the caller's notifications read (the given ids, or all): answers how many were unread. Others' ids change nothing. */
export async function markNotificationsRead(ctx: RequestContext, ids: (string | number)[] | null | undefined): Promise<number> {
  const user = requireUser(ctx);
  const only = ids ? ids.map((id) => parseId(id, "ids")) : null;
  if (only && !only.length) return 0;
  const rows = await sqlOf(ctx).query<{ id: number }>(Prisma.sql`
    UPDATE notifications SET read_at = (now() AT TIME ZONE 'UTC')::timestamp(3)
     WHERE user_id = ${user.id} AND read_at IS NULL${only ? Prisma.sql` AND id IN (${Prisma.join(only)})` : Prisma.empty}
    RETURNING id`);
  return rows.length;
}
