import { z } from "zod";
import { Prisma, type ActivityEntry } from "../generated/prisma/client.js";
import { defineArea } from "../common/area.js";
import { sqlOf, type RequestContext } from "../common/context.js";
import { badInput, forbidden } from "../common/errors.js";
import { columnValues } from "../common/fields.js";
import { changedRecord, createdRecord, findVisible } from "../common/record-reads.js";
import { type Selection } from "../common/row-reading.js";
import { assertCanWriteInScope, requireUser, resolveCreator } from "../common/scopes.js";
import { changesNothing, parseInput, type RawInput } from "../common/validation.js";
import { utcTimestamp } from "../db/sql.js";
import type { Recipient } from "../common/activity-sources.js";
import { changeRecord, createRecord } from "../common/write-path.js";
import { insertStatement, updateStatement } from "../common/write-statements.js";
import { ACTIVITY_FIELDS, ACTIVITY_RECORDS, activityFields } from "./records.js";
import { assertMayAddress, createdBefore, createdFrom, parseRecipients, recipientsText, sentToOneOf, showsActor, shownRecipients } from "./service.js";

/**
 * The activity feed's entries (src/common/area.ts): what happened in a scope, sent to its recipients, who
 * hear it (docs/decisions.md, "Activity"). Who may address whom, and an entry that follows its record, are the
 * area's own writes (`own`, below this declaration; who may address whom is src/activity/service.ts's); the feed
 * stays in src/activity/service.ts, its consumer and the readers' revision in consumer.ts and readers.ts. Who
 * hears an entry, its records declaration and its fields are src/activity/records.ts.
 */
export const ACTIVITY_AREA = defineArea({
  area: "activity",
  model: "ActivityEntry",
  plural: "activityEntries",
  label: "Activity entry",
  description: "An activity entry: what happened in a scope, sent to its recipients.",
  policy: ACTIVITY_RECORDS,
  fields: activityFields,
  shown: {
    id: true,
    scope: true,
    scopeId: true,
    action: true,
    alias: true,
    description: true,
    created: true,
    createdById: {
      type: "Int",
      nullable: true,
      rest: "created_by",
      description: "The author's id; null for an anonymous entry, except to its author and administrators.",
      resolve: (entry: ActivityEntry, _args: never, ctx) => (showsActor(ctx, entry) ? entry.createdById : null),
    },
    anonymous: "0 = false, 1 = true: the actor is shown only to the author and administrators.",
    parent: { from: "parentId", description: "ID of the parent entry (0: none)." },
    recipients: {
      type: "String",
      description:
        "Comma-separated <scope>:<scope_id> pairs the entry is sent to: all of them to its author and administrators, to others those that concern them (the site, themselves, their groups).",
      select: { createdById: true },
      resolve: (entry: ActivityEntry, _args: never, ctx) => shownRecipients(ctx, entry),
    },
    modified: true,
    createdBy: {
      type: "User",
      nullable: true,
      rest: false,
      select: { createdBy: true },
      description: "The author; null for an anonymous entry, except to its author and administrators.",
      resolve: (entry: ActivityEntry & { createdBy: unknown }, _args: never, ctx) => (showsActor(ctx, entry) ? entry.createdBy : null),
    },
  },
  // Kept by a trigger (sentToSite) and by the consumer for an entry that follows a record (src/activity/readers.ts).
  hidden: ["sentToSite", "sourceEvent", "sourceArea", "sourceRecord", "candidates", "revise"],
  list: {
    description: "Activity entries of one scope the caller hears, searched, sorted and paged like GET /api/activity/list (1.1's filters too).",
    sortColumns: { created: "created", id: "id", action: "action" },
    defaults: { sort: "created", sortDir: "desc", limit: 25 },
    search: { in: "description", fields: ["description"] },
    filters: {
      startDate: { type: "String", rule: z.string(), description: "Created at or after: YYYY-MM-DD or YYYY-MM-DD HH:mm:ss (UTC).", condition: createdFrom },
      endDate: { type: "String", rule: z.string(), description: "Created before: YYYY-MM-DD or YYYY-MM-DD HH:mm:ss (UTC).", condition: createdBefore },
      recipients: {
        type: "String",
        rule: z.string(),
        description: "Only entries sent to one of these comma-separated <scope>:<scope_id> recipients (a bare id is a member; 0: to nobody).",
        condition: sentToOneOf,
      },
    },
  },
  read: { description: "One activity entry sent to the caller (or public, or theirs)." },
  writes: {
    by: "users",
    forbidden: "Only the author, a manager of the entry's group or an administrator can change this activity entry.",
    names: ["action", "recipients"],
    actorOnlyNames: ["recipients"],
    update: "Only the given fields change.",
    remove: "Deletes the activity entry; returns its id.",
  },
  own: { create: createActivityEntry, update: updateActivityEntry },
  events: {
    activityEntryCreated: "An activity entry was created.",
    activityEntryUpdated: "An activity entry's fields changed; `changed` names them.",
    activityEntryDeleted: "An activity entry was deleted.",
  },
  // Entries of other scopes sent to a deleted group lose that recipient (their other recipients keep them).
  scopeContent: {
    models: ["ActivityRecipient"],
    remove: (tx, { scope, scopeId }) => sqlOf(tx).query(Prisma.sql`DELETE FROM activity_recipients WHERE scope = ${scope} AND scope_id = ${scopeId}`),
  },
  rest: {
    // 1.1's list adds start_date, end_date and recipients; both answer a bare array (the original's).
    versions: ["1.0", "1.1"],
    id: "Activity entry identifier.",
    create: { path: "/activity", task: "create an entry" },
    list: [
      { path: "/activity/list", versions: ["1.0"], task: "list entries", response: { kind: "array" }, except: ["start_date", "end_date", "recipients"] },
      { path: "/activity/list", versions: ["1.1"], task: "list entries", response: { kind: "array" }, documented: { limit: true, start: true, search: true, sort: true, sort_Dir: true, scope: true, scope_id: true, start_date: true, end_date: true, recipients: true } },
    ],
    remove: { path: "/activity/{id}", task: "delete an entry" },
    read: { path: "/activity/{id}", task: "retrieve an entry" },
    // Recipients are re-addressed through `recipients` as channels (1, 0) on PUT: the pairs are POST's.
    replace: { path: "/activity/{id}", task: "update an entry", except: ["recipients"] },
  },
});

/** The entries' list, as the feed's plan test and the contract take it. */
export const ACTIVITY_LIST = ACTIVITY_AREA.listSpec;

// ---------------------------------------------------------------------------------------------------
// The area's own writes (`own` above): here beside the declaration whose written records they write through.

export type CreateActivityEntry = RawInput<typeof ACTIVITY_FIELDS.create>;
export type UpdateActivityEntry = RawInput<typeof ACTIVITY_FIELDS.update>;

type Query = { include?: Prisma.ActivityEntryInclude; select?: Prisma.ActivityEntrySelect };

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

const recipientRows = (entry: Prisma.Sql, created: Prisma.Sql, recipients: Recipient[]) =>
  Prisma.sql`INSERT INTO activity_recipients (entry_id, scope, scope_id, created)
    SELECT ${entry}, v.scope, v.scope_id, ${created} FROM (VALUES ${Prisma.join(recipients.map((r) => Prisma.sql`(${r.scope}::text, ${r.scopeId}::int)`))}) AS v(scope, scope_id)`;

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
