import { Prisma, type ActivityEntry } from "../generated/prisma/client.js";
import type { RequestContext } from "../common/context.js";
import { authorShownTo, sqlOf } from "../common/context.js";
import { badInput } from "../common/errors.js";
import DataLoader from "dataloader";
import { defineLoader } from "../common/loaders.js";
import { DEFAULT_SCOPE, pageWindow, type Page } from "../common/list-spec.js";
import { rowsStatement, type Selection } from "../common/row-reading.js";
import { recordScopeExistsSql, recordScopeSql, scopesInRelationSql } from "../common/scope-kinds.js";
import { requireUser } from "../common/scopes.js";
import { parseTimestamp } from "../common/time.js";
import type { SqlClient } from "../db/sql.js";
import type { Recipient } from "../common/activity-sources.js";
import { ACTIVITY_RECORDS, sentToMember } from "./records.js";

type Query = { include?: Prisma.ActivityEntryInclude; select?: Prisma.ActivityEntrySelect };

const PAIR = /^([a-z][a-z_]*):(\d{1,9})$/;

/**
 * Recipients as written: "1" (or absent) is the entry's own scope; otherwise `<scope>:<id>` pairs and bare
 * member ids, comma-separated, de-duplicated. `parameter`: the name a 400 names.
 */
export function parseRecipients(text: string | null | undefined, own: Recipient, parameter = "recipients"): Recipient[] {
  const trimmed = (text ?? "").trim();
  if (trimmed === "" || trimmed === "1") return [own];
  // 0: nobody but the author (and administrators): a note to self, as PUT's channel 0.
  if (trimmed === "0") return [];
  const seen = new Map<string, Recipient>();
  for (const part of trimmed.split(",").map((piece) => piece.trim()).filter(Boolean)) {
    const pair = PAIR.exec(part);
    const recipient = pair ? { scope: pair[1]!, scopeId: Number(pair[2]) } : /^\d{1,9}$/.test(part) ? { scope: "member", scopeId: Number(part) } : null;
    if (!recipient) throw badInput(parameter, `"${part}" is not a <scope>:<scope_id> pair or a member id`);
    if (!["site", "group", "member"].includes(recipient.scope)) throw badInput(parameter, `"${part}": recipients are site:0, group:<id> or member:<id>`);
    if (recipient.scope === "site" && recipient.scopeId !== 0) throw badInput(parameter, `"${part}": the site is site:0`);
    seen.set(`${recipient.scope}:${recipient.scopeId}`, recipient);
  }
  if (!seen.size) throw badInput(parameter, "names no recipient: give <scope>:<scope_id> pairs, 1 (the entry's own scope) or 0 (nobody)");
  return [...seen.values()];
}

/** A recipient as stored and compared: `member:7`. */
export const recipientKey = (recipient: Recipient) => `${recipient.scope}:${recipient.scopeId}`;

/** Recipients as stored (`recipients`, `candidates`): `site:0,member:7`. */
export const recipientsText = (recipients: Recipient[]) => recipients.map(recipientKey).join(",");

/** The stored form back (`recipientsText`'s inverse; written by the service, never a caller's input: that is `parseRecipients`). */
export const storedRecipients = (text: string): Recipient[] =>
  text
    .split(",")
    .filter(Boolean)
    .map((pair) => {
      const [scope, id] = pair.split(":");
      return { scope: scope!, scopeId: Number(id) };
    });

/**
 * Who may address whom (docs/decisions.md, "Activity"): administrators anyone; others the site, groups they
 * are a member of, themselves, and members they share a group with (no cold messages: the feed is no spam
 * channel). A group, or a member, the caller may not address is 400 naming `recipients`, as if unknown.
 */
export async function assertMayAddress(ctx: RequestContext, recipients: Recipient[], parameter = "recipients"): Promise<void> {
  const user = requireUser(ctx);
  const groups = recipients.filter((r) => r.scope === "group").map((r) => r.scopeId);
  const members = recipients.filter((r) => r.scope === "member" && r.scopeId !== user.id).map((r) => r.scopeId);
  if (!groups.length && !members.length) return;
  // A group the caller belongs to (so it exists: memberships go with their group), or for administrators one
  // that exists (its kind's `exists`, which locks the group's row FOR KEY SHARE until the statement ends, or
  // the update's transaction: a group deleted meanwhile waits for it); a member shares a scope of some kind
  // with the caller (both belong to it), as the kinds declare belonging.
  const belongs = user.isAdmin
    ? recordScopeExistsSql(Prisma.sql`'group'::text`, Prisma.sql`g.id`)
    : (recordScopeSql(Prisma.sql`'group'::text`, Prisma.sql`g.id`, "members", user.id) ?? Prisma.sql`FALSE`);
  const mine = scopesInRelationSql("members", user.id);
  const theirs = scopesInRelationSql("members", Prisma.sql`u.id`);
  const shared = mine && theirs ? Prisma.sql`EXISTS (SELECT 1 FROM (${theirs}) AS theirs JOIN (${mine}) AS mine USING (scope, scope_id))` : Prisma.sql`FALSE`;
  const [row] = await sqlOf(ctx).query<{ groups: number[] | null; members: number[] | null }>(Prisma.sql`SELECT
      (SELECT array_agg(g.id) FROM unnest(${groups}::int[]) AS g (id) WHERE ${belongs}) AS groups,
      (SELECT array_agg(u.id) FROM users u WHERE u.id = ANY(${members}::int[])${user.isAdmin ? Prisma.empty : Prisma.sql` AND ${shared}`}) AS members`);
  const allowedGroups = new Set(row?.groups ?? []);
  const allowedMembers = new Set(row?.members ?? []);
  const refusedGroup = groups.find((id) => !allowedGroups.has(id));
  if (refusedGroup !== undefined) throw badInput(parameter, `group:${refusedGroup}: only a group's members send to it`);
  const refusedMember = members.find((id) => !allowedMembers.has(id));
  if (refusedMember !== undefined) throw badInput(parameter, `member:${refusedMember}: you may send to members you share a group with`);
}

/**
 * The recipients a viewer is shown: all of them to the author and administrators; to others only those that
 * concern them (the site, themselves, their groups), so an entry does not tell who else it went to (a hidden
 * group's id, the managers a request went to).
 */
export async function shownRecipients(ctx: RequestContext, entry: Pick<ActivityEntry, "recipients" | "createdById">): Promise<string> {
  const user = ctx.viewer.user;
  if (user?.isAdmin || (user && user.id === entry.createdById)) return entry.recipients;
  const pieces = entry.recipients.split(",").filter(Boolean);
  const own = user ? `member:${user.id}` : null;
  const concerns = (piece: string) => piece.startsWith("site:") || piece === own;
  // The caller's other channels (their groups) are read only for an entry sent to some.
  const heard = user && pieces.some((piece) => !concerns(piece) && !piece.startsWith("member:")) ? await viewerChannelsLoader(ctx).load(user.id) : new Set<string>();
  return pieces.filter((piece) => concerns(piece) || heard.has(piece)).join(",");
}

/**
 * The recipients a user hears besides the site, as (scope, scope_id) rows: themselves (`member:<id>`) and
 * every scope they belong to, as its kind declares (their groups). The feed walks them; a subscription and
 * an entry's shown recipients match them.
 */
export function channelsOf(userId: number): Prisma.Sql {
  const belongs = scopesInRelationSql("members", userId);
  return Prisma.sql`SELECT 'member'::text AS scope, ${userId}::int AS scope_id${belongs ? Prisma.sql` UNION ALL ${belongs}` : Prisma.empty}`;
}

/** The caller's channels as `scope:id` texts, once per request (the recipients they are shown). */
export async function channelTextsOf(sql: SqlClient, userId: number): Promise<Set<string>> {
  const rows = await sql.query<{ scope: string; scope_id: number }>(channelsOf(userId));
  return new Set(rows.map((row) => `${row.scope}:${row.scope_id}`));
}

const viewerChannelsLoader = defineLoader(
  (ctx) =>
    new DataLoader<number, Set<string>>(async (userIds) => {
      const heard = await channelTextsOf(sqlOf(ctx), userIds[0]!);
      return userIds.map(() => heard);
    }),
);

const DATE = /^\d{4}-\d{2}-\d{2}( \d{2}:\d{2}:\d{2})?$/;

/** `start_date`/`end_date` (YYYY-MM-DD or YYYY-MM-DD HH:mm:ss, UTC), or 400 naming the parameter. */
export function parseDateFilter(value: string | null | undefined, parameter: string): Date | null {
  if (value === null || value === undefined || value.trim() === "") return null;
  const date = DATE.test(value.trim()) ? parseTimestamp(value.trim()) : null;
  if (!date) throw badInput(parameter, "must be YYYY-MM-DD or YYYY-MM-DD HH:mm:ss");
  return date;
}

/** `startDate` (1.1): entries created at or after it. */
export function createdFrom(value: string): Prisma.Sql {
  const start = parseDateFilter(value, "startDate");
  return start ? Prisma.sql`t.created >= ${start}` : Prisma.sql`TRUE`;
}

/** `endDate` (1.1): entries created before it. */
export function createdBefore(value: string): Prisma.Sql {
  const end = parseDateFilter(value, "endDate");
  return end ? Prisma.sql`t.created < ${end}` : Prisma.sql`TRUE`;
}

/**
 * `recipients` (1.1): entries sent to one of them (0: to nobody, notes to self). A recipient is matched only
 * where the caller is shown it (shownRecipients): the site, themselves, their groups, or any of their own
 * entries'. Otherwise naming a member would tell who an entry went to, and an anonymous thread's entry, sent
 * to its author, who wrote it.
 */
export function sentToOneOf(value: string, ctx: RequestContext): Prisma.Sql {
  if (!value.trim()) return Prisma.sql`TRUE`;
  const wanted = parseRecipients(value, DEFAULT_SCOPE, "recipients");
  const user = ctx.viewer.user;
  const site = Prisma.sql`(f.scope = 'site' AND f.scope_id = 0)`;
  const shown = user?.isAdmin ? Prisma.sql`TRUE` : user ? Prisma.sql`(t.created_by = ${user.id} OR ${site} OR ${sentToMember("f", user.id)})` : site;
  return wanted.length
    ? Prisma.sql`EXISTS (SELECT 1 FROM activity_recipients f WHERE f.entry_id = t.id AND (${Prisma.join(
        wanted.map((r) => Prisma.sql`(f.scope = ${r.scope} AND f.scope_id = ${r.scopeId})`),
        " OR ",
      )}) AND ${shown})`
    : Prisma.sql`NOT EXISTS (SELECT 1 FROM activity_recipients f WHERE f.entry_id = t.id)`;
}

/** The feed's statements (its page and its total) for a signed-in caller: the plan test explains them. */
export function feedStatements(caller: Pick<RequestContext, "db" | "viewer">, args: { limit?: number | null; start?: number | null }, query: Query = {}) {
  const user = caller.viewer.user!;
  const { take, skip } = pageWindow(args);
  // The caller's channels (themselves, each of their groups), each walked newest first through the
  // recipients' (scope, scope_id, created, entry_id) index for as many rows as the page reaches, merged and
  // de-duplicated (an entry sent to the caller and to their group comes once): a page costs the same however
  // few entries the caller has among all. (Walking all entries newest first and asking each whether it was
  // sent to the caller read the whole table for a caller who had fewer than a page: 1.4 s at 10^6 entries.)
  const channels = channelsOf(user.id);
  const reached = take + skip;
  const mine = Prisma.sql`SELECT x.entry_id FROM (${channels}) ch,
      LATERAL (SELECT r.entry_id, r.created FROM activity_recipients r WHERE r.scope = ch.scope AND r.scope_id = ch.scope_id ORDER BY r.created DESC, r.entry_id DESC LIMIT ${reached}) x
    GROUP BY x.entry_id, x.created ORDER BY x.created DESC, x.entry_id DESC LIMIT ${take} OFFSET ${skip}`;
  return {
    page: rowsStatement<ActivityEntry>(caller.db, ACTIVITY_RECORDS, query as Selection, {
      where: Prisma.sql`t.id IN (${mine})`,
      orderBy: Prisma.sql`t.created DESC, t.id DESC`,
      limit: take,
      viewer: caller.viewer,
    }),
    total: Prisma.sql`SELECT count(DISTINCT r.entry_id)::int AS total FROM activity_recipients r WHERE ${sentToMember("r", user.id)}`,
  };
}

/**
 * The caller's feed: every entry sent to them or to a group they belong to, across scopes, newest first,
 * with its exact total (`activityFeed`). Anonymous callers have none.
 */
export function activityFeed(ctx: RequestContext, args: { limit?: number | null; start?: number | null }, query: Query = {}): Page<ActivityEntry> {
  requireUser(ctx);
  const statements = feedStatements(ctx, args, query);
  const sql = sqlOf(ctx);
  let items: Promise<ActivityEntry[]> | undefined;
  let total: Promise<number> | undefined;
  return {
    items: () => (items ??= (async () => statements.page.finish(await sql.query(statements.page.sql)))()),
    total: () => (total ??= (async () => (await sql.query<{ total: number }>(statements.total))[0]!.total)()),
  };
}

/** Whether the viewer sees an entry's actor: not anonymous, or they wrote it, or they administer. */
export const showsActor = (ctx: RequestContext, entry: Pick<ActivityEntry, "anonymous" | "createdById">) => authorShownTo(ctx.viewer, entry.anonymous, entry.createdById);
