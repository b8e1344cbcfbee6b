import { z } from "zod";
import { Prisma, type ActivityEntry } from "../generated/prisma/client.js";
import type { RequestContext } from "../common/context.js";
import { authorShownTo, sqlOf } from "../common/context.js";
import { badInput, forbidden } from "../common/errors.js";
import DataLoader from "dataloader";
import { defineLoader } from "../common/loaders.js";
import { DEFAULT_SCOPE, pageWindow, type Page } from "../common/paging.js";
import { columnValues } from "../common/fields.js";
import { changedRecord, createdRecord, findVisible } from "../common/record-reads.js";
import { rowsStatement, type Selection } from "../common/row-reading.js";
import { recordScopeExistsSql, recordScopeSql, scopesInRelationSql, type UserRef } from "../common/scope-kinds.js";
import { assertCanWriteInScope, requireUser, resolveCreator } from "../common/scopes.js";
import { changesNothing, parseInput, type RawInput } from "../common/validation.js";
import { parseTimestamp } from "../common/time.js";
import { utcTimestamp, type SqlClient } from "../db/sql.js";
import type { Recipient } from "../common/activity-sources.js";
import { changeRecord, createRecord, insertStatement, updateStatement } from "../common/write-path.js";
import { ACTIVITY_AREA, ACTIVITY_FIELDS, ACTIVITY_RECORDS } from "./area.js";

/**
 * Whether the recipient row `alias` is the user's: sent to them (`member:<id>`, the documented form), or to
 * a scope they belong to now, as its kind declares (a group: the feed, reads, list totals). The scopes as
 * arrays the recipients' indexes are probed with: an IN sub-select read every group recipient (313,000 rows
 * at 10^6 entries).
 */
function sentToMember(alias: string, userId: UserRef): Prisma.Sql {
  const r = (column: string) => Prisma.raw(`${alias}.${column}`);
  const belongs = recordScopeSql(r("scope"), r("scope_id"), "members", userId, { asArray: true });
  return Prisma.sql`((${r("scope")} = 'member' AND ${r("scope_id")} = ${userId})${belongs ? Prisma.sql` OR ${belongs}` : Prisma.empty})`;
}

/**
 * Who hears an entry (docs/decisions.md, "Activity"): everyone when it is sent to the site (`site:0`, public),
 * a member when sent to them (`member:<id>`), a group's current members when sent to the group. Membership
 * is asked at read time: a new member sees the group's earlier entries, a member who left no longer does.
 */
export function heardBy(id: Prisma.Sql, userId: UserRef | null): Prisma.Sql {
  const to = userId === null ? Prisma.sql`r.scope = 'site' AND r.scope_id = 0` : Prisma.sql`((r.scope = 'site' AND r.scope_id = 0) OR ${sentToMember("r", userId)})`;
  // A scalar sub-select, not EXISTS: asked per row of the list's own index order through the recipients'
  // primary key (an EXISTS becomes a semi-join from the recipients, and a sort).
  return Prisma.sql`COALESCE((SELECT TRUE FROM activity_recipients r WHERE r.entry_id = ${id} AND ${to} LIMIT 1), FALSE)`;
}

/**
 * A scope's entries a viewer hears, without counting rows where the counters can say (list_counts keeps,
 * per scope and creator, the entries sent to the site and the others): administrators all; anonymous
 * callers those sent to the site; a signed-in user those, plus their own others, plus the others sent to
 * them or their groups by someone else — the one part counted, through the recipients' index of their
 * channels (bounded by what was sent to them, not by the scope's entries).
 */
export function heardTotal(viewer: RequestContext["viewer"], scope: { scope: string; scopeId: number }): Prisma.Sql {
  const kept = (condition: Prisma.Sql) =>
    Prisma.sql`coalesce((SELECT sum(c.rows) FROM list_counts c WHERE c.table_name = 'activity' AND c.scope = ${scope.scope} AND c.scope_id = ${scope.scopeId} AND ${condition}), 0)`;
  const user = viewer.user;
  if (user?.isAdmin) return Prisma.sql`SELECT ${kept(Prisma.sql`c.created_by = 0`)}::int`;
  const sentToSite = kept(Prisma.sql`c.created_by = 0 AND c.published`);
  if (!user) return Prisma.sql`SELECT ${sentToSite}::int`;
  const ownOthers = kept(Prisma.sql`c.created_by = ${user.id} AND NOT c.published`);
  // Each entry once: through the first of the caller's channels it was sent to (a probe of the recipients'
  // primary key), so no sort or de-duplication of the rows.
  // The entry is asked by primary key per row (a scalar sub-select: a join would sort the rows to merge them).
  const sentToThem = Prisma.sql`(SELECT count(*) FROM activity_recipients r
      WHERE ${sentToMember("r", user.id)}
        AND NOT EXISTS (SELECT 1 FROM activity_recipients o WHERE o.entry_id = r.entry_id AND (o.scope, o.scope_id) < (r.scope, r.scope_id) AND ${sentToMember("o", user.id)})
        AND COALESCE((SELECT TRUE FROM activity t WHERE t.id = r.entry_id AND t.scope = ${scope.scope} AND t.scope_id = ${scope.scopeId}
                                                     AND t.sent_to_site = 0 AND t.created_by <> ${user.id}), FALSE))`;
  return Prisma.sql`SELECT (${sentToSite} + ${ownOthers} + ${sentToThem})::int`;
}

export type CreateActivityEntry = RawInput<typeof ACTIVITY_FIELDS.create>;
export type UpdateActivityEntry = RawInput<typeof ACTIVITY_FIELDS.update>;

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

/** `parent` must name an entry the caller hears (400 naming it, as for one that does not exist: no existence oracle). */
async function assertParent(ctx: RequestContext, parent: number | null | undefined): Promise<void> {
  if (!parent) return;
  const found = await findVisible<ActivityEntry>(ctx, ACTIVITY_RECORDS, parent, { select: { id: true } });
  if (!found) throw badInput("parent", `no activity entry ${parent}`);
}

/**
 * Who an entry is sent to, and whether it names its author, are its author's to change (and administrators'):
 * a group manager moderates what an entry says, but re-addressing a note to self would read it, and clearing
 * `anonymous` would unmask its author. An entry the site wrote for a record (the outbox consumer's) follows
 * that record (src/activity/readers.ts): its recipients are those who may read the record, its anonymity the
 * record's, and nobody changes them, administrators included (they change the record, or delete the entry).
 */
function assertMayChangeAddressing(
  ctx: RequestContext,
  record: ActivityEntry,
  change: { anonymous?: number | null; recipients?: Recipient[] | null; scope: Recipient; createdById: number; created?: Date | null },
): void {
  const user = requireUser(ctx);
  const changesAnonymous = change.anonymous != null && change.anonymous !== record.anonymous;
  const changesRecipients = change.recipients != null && recipientsText(change.recipients) !== record.recipients;
  if (record.sourceEvent !== null) {
    // What it is decided by: its record's scope (a group's later hiding finds it there), its author, its time.
    const follows = (field: string) => forbidden(`This entry's ${field} follows its record (change the record, or delete the entry).`);
    if (changesRecipients) throw forbidden("This entry's recipients follow its record: they are those who may read it (change the record, or delete the entry).");
    if (changesAnonymous) throw follows("anonymous");
    if (change.scope.scope !== record.scope || change.scope.scopeId !== record.scopeId) throw follows("scope");
    if (change.createdById !== record.createdById) throw follows("created_by");
    // To the second, as REST answers it (the consumer stores milliseconds): a PUT sending back what GET said passes.
    if (change.created && Math.floor(change.created.getTime() / 1000) !== Math.floor(record.created.getTime() / 1000)) throw follows("created");
    return;
  }
  if (user.isAdmin || record.createdById === user.id) return;
  if (changesAnonymous) throw forbidden("Only the entry's author or an administrator can change anonymous.");
  if (changesRecipients) throw forbidden("Only the entry's author or an administrator can change its recipients.");
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

const recipientRows = (entry: Prisma.Sql, created: Prisma.Sql, recipients: Recipient[]) =>
  Prisma.sql`INSERT INTO activity_recipients (entry_id, scope, scope_id, created)
    SELECT ${entry}, v.scope, v.scope_id, ${created} FROM (VALUES ${Prisma.join(recipients.map((r) => Prisma.sql`(${r.scope}::text, ${r.scopeId}::int)`))}) AS v(scope, scope_id)`;

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

export async function createActivityEntry(ctx: RequestContext, input: CreateActivityEntry, query: Query = {}): Promise<ActivityEntry> {
  const user = requireUser(ctx);
  const data = parseInput(ACTIVITY_FIELDS.create, input);
  const values = columnValues(ACTIVITY_FIELDS, data, "create");
  const scope = { scope: values.scope as string, scopeId: values.scopeId as number };
  const recipients = parseRecipients(data.recipients, scope);
  await assertParent(ctx, data.parent);
  await assertMayAddress(ctx, recipients);
  const createdById = await resolveCreator(ctx, data.createdBy, user.id);
  const created = await createRecord<ActivityEntry>(ctx, ACTIVITY_AREA.writesOf, {
    event: ACTIVITY_AREA.eventsNamed.activityEntryCreated,
    scope,
    inserted: Prisma.sql`created AS (${insertStatement(ctx, ACTIVITY_RECORDS, { ...values, createdById, recipients: recipientsText(recipients) })})${recipients.length ? Prisma.sql`,
      sent AS (${recipientRows(Prisma.sql`(SELECT id FROM created)`, Prisma.sql`(SELECT created FROM created)`, recipients)})` : Prisma.empty}`,
  });
  return createdRecord<ActivityEntry>(ctx, ACTIVITY_RECORDS, created!.id, query as Selection);
}

/** Changes the given fields only (PUT keeps anonymous and recipients when left out). */
export async function updateActivityEntry(ctx: RequestContext, id: number, input: UpdateActivityEntry, query: Query = {}): Promise<ActivityEntry | null> {
  requireUser(ctx);
  const data = parseInput(ACTIVITY_FIELDS.update, input);
  await assertParent(ctx, data.parent);
  await changeRecord<ActivityEntry>(ctx, ACTIVITY_AREA.writesOf, id, {
    event: ACTIVITY_AREA.eventsNamed.activityEntryUpdated,
    async change(tx, record) {
      if (changesNothing(data)) return { row: record, changed: [] };
      if (data.parent === id) throw badInput("parent", "an entry is not its own parent");
      const scope = { scope: data.scope ?? record.scope, scopeId: data.scopeId ?? record.scopeId };
      if (scope.scope !== record.scope || scope.scopeId !== record.scopeId) await assertCanWriteInScope(tx, scope.scope, scope.scopeId);
      const createdBy = await resolveCreator(tx, data.createdBy, record.createdById);
      let recipients: Recipient[] | null = null;
      if (data.recipients != null) recipients = parseRecipients(data.recipients, scope);
      else if (data.recipientChannel != null) recipients = data.recipientChannel === 1 ? [scope] : [];
      assertMayChangeAddressing(tx, record, { anonymous: data.anonymous, recipients, scope, createdById: createdBy, created: data.created });
      if (recipients) await assertMayAddress(tx, recipients);
      const columns = { ...columnValues(ACTIVITY_FIELDS, { ...data, createdBy }, "update"), ...scope, ...(recipients ? { recipients: recipientsText(recipients) } : {}) };
      // The recipient rows first (they carry the entry's `created`, as the update will store it), then the
      // entry through the write path's update, so its event names the fields that changed.
      if (recipients || data.created) {
        const kept: Recipient[] = recipients ?? (await tx.tx.query<Recipient>(Prisma.sql`SELECT scope, scope_id AS "scopeId" FROM activity_recipients WHERE entry_id = ${id}`));
        await tx.tx.query(Prisma.sql`DELETE FROM activity_recipients WHERE entry_id = ${id}`);
        if (kept.length) await tx.tx.query(recipientRows(Prisma.sql`${id}::int`, utcTimestamp(data.created ?? record.created), kept));
      }
      return { update: updateStatement(tx, ACTIVITY_RECORDS, id, columns) };
    },
  });
  return changedRecord<ActivityEntry>(ctx, ACTIVITY_RECORDS, id, query as Selection);
}
