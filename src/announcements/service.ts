import { z } from "zod";
import { Prisma, type Announcement } from "../generated/prisma/client.js";
import { sqlOf, type RequestContext } from "../common/context.js";
import { badInput, notFound } from "../common/errors.js";
import { listSpec, pagedList, type ListArgs } from "../common/paging.js";
import { accessLevels, PUBLISH_STATE } from "../common/access.js";
import { accessField, columnValues, createdByField, createdField, fieldTable, stateField } from "../common/fields.js";
import { changedRecord, createdRecord, findVisible, records, type Selection } from "../common/records.js";
import { assertCanWriteInScope, requireUser, resolveCreator, type ScopeRule } from "../common/scopes.js";
import { changesNothing, parseInput, timestamp, type RawInput, assertPublishingWindow } from "../common/validation.js";
import { domainEvents } from "../common/events.js";
import { changeRecord, createRecord, deleteScopeRecords, deleteStatement, insertStatement, updateStatement, writtenRecords } from "../common/write-path.js";
import { registerGroupContent } from "../groups/content.js";

/**
 * Announcements (docs/decisions.md, "Group plugins"): records of a group only, reached through
 * /groups/{group}/announcements. The group's managers and administrators write them; members read them
 * all; anyone else reads the public ones of a visible group (a hidden group is not there for them:
 * groupIdFromPath answers 404 before any announcement is read).
 */
export const ANNOUNCEMENTS_ACCESS = accessLevels("AnnouncementAccess", [
  { value: 0, level: "public" },
  { value: 1, level: "registered" },
  { value: 2, level: "private", label: "group members" },
], 0);

/** Announcements and who sees them: published = state 1 inside the publishing window (as the blog's). */
export const ANNOUNCEMENTS_RECORDS = records({
  model: "Announcement",
  scoped: true,
  published: { field: "state", value: 1 },
  window: { up: "publishUp", down: "publishDown" },
  access: ANNOUNCEMENTS_ACCESS,
  creator: "createdById",
});

/**
 * `rank` is the default order: sticky ones first, then by priority, then the newest (ties by id, which
 * follow creation). One stored column (sticky * RANK_STICKY + priority), so one index serves it.
 */
const RANK_STICKY = 100_000;
const MAX_PRIORITY = 9_999;
const rankOf = (sticky: number, priority: number) => sticky * RANK_STICKY + priority;

/** GET /groups/{group}/announcements/list and `groupAnnouncements`: sort whitelist, defaults and search. */
export const ANNOUNCEMENTS_LIST = listSpec({
  records: ANNOUNCEMENTS_RECORDS,
  sortColumns: { rank: "rank", id: "id", priority: "priority", title: "title", created: "created", publish_up: "publishUp" },
  defaults: { sort: "rank", sortDir: "desc", limit: 25 },
  search: { in: "title or content", fields: ["title", "content"] },
});

const zeroOrOne = (meaning: string) => z.union([z.literal(0), z.literal(1)], `must be 0 or 1 (${meaning})`);

/** The announcements field table (src/common/fields.ts). */
export const ANNOUNCEMENTS_FIELDS = fieldTable({
  // Only ever a group: the plugin path fills both from {group}; they are no REST parameters.
  scope: { type: "String", rule: z.literal("group", 'must be "group": announcements belong to groups'), required: "create", description: 'Always "group".', rest: false },
  scopeId: { type: "Int", rule: z.number().int().min(1), required: "create", description: { create: "The group's gidNumber." }, rest: false },
  title: { type: "String", rule: z.string().trim().min(1, "must not be empty").max(255), required: true, rest: { description: "Announcement title." } },
  content: { type: "String", rule: z.string().trim().min(1, "must not be empty"), required: true, rest: { description: "Announcement text." } },
  priority: {
    type: "Int",
    rule: z.number().int().min(-MAX_PRIORITY).max(MAX_PRIORITY),
    description: `Higher first (from -${MAX_PRIORITY} to ${MAX_PRIORITY}); default 0.`,
    default: 0,
    rest: { description: `Priority: higher first (-${MAX_PRIORITY} to ${MAX_PRIORITY}).` },
  },
  sticky: { type: "Int", rule: zeroOrOne("1: shown before the others"), description: "1: shown before every announcement that is not; default 0.", default: 0, rest: { description: "Sticky (1) or not (0)." } },
  publishUp: { type: "DateTime", rule: timestamp, description: "Start of the publishing window; default now.", default: "now", rest: { description: "Publish start timestamp." } },
  publishDown: {
    type: "DateTime",
    rule: timestamp,
    description: "End of the publishing window (null: none); must be after publishUp.",
    clearedTo: null,
    rest: { description: "Publish end timestamp (empty: none)." },
  },
  // Published unless said otherwise: an announcement is written to be read. That default is the wider
  // choice, so it is a privacy parameter: a PUT that leaves it out keeps a draft a draft (docs/decisions.md).
  state: { ...stateField, description: `${PUBLISH_STATE.description} Default 1.`, default: 1, rest: { ...stateField.rest, privacy: true } },
  access: accessField(ANNOUNCEMENTS_ACCESS),
  created: createdField,
  createdBy: createdByField,
});

export type CreateAnnouncement = RawInput<typeof ANNOUNCEMENTS_FIELDS.create>;
export type UpdateAnnouncement = RawInput<typeof ANNOUNCEMENTS_FIELDS.update>;

type Query = { include?: Prisma.AnnouncementInclude; select?: Prisma.AnnouncementSelect };

const MANAGERS_ONLY = "Only the group's managers can write its announcements.";
/** Who writes announcements: the group's managers (and administrators), not every member. */
const MANAGED: ScopeRule = { rule: "managers", refused: MANAGERS_ONLY };

export function listAnnouncements(ctx: RequestContext, args: ListArgs, query: Query = {}) {
  return pagedList<Announcement>(ANNOUNCEMENTS_LIST, ctx, args, query as Selection);
}

/** An announcement the caller may see, or 404. */
export async function getAnnouncement(ctx: RequestContext, id: number, query: Query = {}) {
  const record = await findVisible<Announcement>(ctx, ANNOUNCEMENTS_RECORDS, id, query as Selection);
  if (!record) throw notFound(`Announcement ${id} not found.`);
  return record;
}

/** The announcements domain events (docs/events.md). */
export const ANNOUNCEMENTS_EVENTS = domainEvents("announcements", {
  announcementCreated: "An announcement was created.",
  announcementUpdated: "An announcement's fields changed; `changed` names them.",
  announcementDeleted: "An announcement was deleted (by itself, or with its group).",
});

/** Announcements on the write path (src/common/write-path.ts). */
export const ANNOUNCEMENTS_WRITES = writtenRecords({
  area: "announcements",
  changedSubscription: "announcementChanged",
  records: ANNOUNCEMENTS_RECORDS,
  names: ["title", "publishUp", "publishDown"],
  notFound: (id) => `Announcement ${id} not found.`,
  forbidden: MANAGERS_ONLY,
});

/**
 * Only managers: the kit's default lets a record's creator change it too, and a member who was a manager
 * once is no longer one. So the locked row's scope must be managed by the caller (administrators pass).
 */
async function assertManagesAnnouncement(tx: RequestContext, record: Announcement) {
  await assertCanWriteInScope(tx, record.scope, record.scopeId, MANAGED);
}

export async function createAnnouncement(ctx: RequestContext, input: CreateAnnouncement, query: Query = {}) {
  const user = requireUser(ctx);
  const data = parseInput(ANNOUNCEMENTS_FIELDS.create, input);
  const createdById = await resolveCreator(ctx, data.createdBy, user.id);
  const publishUp = data.publishUp ?? new Date();
  assertPublishingWindow(publishUp, data.publishDown);
  const values = columnValues(ANNOUNCEMENTS_FIELDS, data, "create");
  const created = await createRecord<Announcement>(ctx, ANNOUNCEMENTS_WRITES, {
    event: ANNOUNCEMENTS_EVENTS.announcementCreated,
    answer: { query: query as Selection },
    // The group must exist (400 naming scopeId) and the caller manage it (403), asked in the insert's statement.
    scope: { scope: data.scope, scopeId: data.scopeId, admits: MANAGED },
    inserted: Prisma.sql`created AS (${insertStatement(ctx, ANNOUNCEMENTS_RECORDS, {
      ...values,
      publishUp,
      createdById,
      rank: rankOf(data.sticky ?? 0, data.priority ?? 0),
    })})`,
  });
  return createdRecord<Announcement>(ctx, ANNOUNCEMENTS_RECORDS, created!, query as Selection);
}

/** Changes the given fields only; an announcement never leaves its group. Null when the caller may change it but not read it. */
export async function updateAnnouncement(ctx: RequestContext, id: number, input: UpdateAnnouncement, query: Query = {}) {
  requireUser(ctx);
  const data = parseInput(ANNOUNCEMENTS_FIELDS.update, input);
  await changeRecord<Announcement>(ctx, ANNOUNCEMENTS_WRITES, id, {
    event: ANNOUNCEMENTS_EVENTS.announcementUpdated,
    authorize: (locked) => {
      // Whether the caller manages the group is asked in change(), in the transaction; a record the caller cannot see stays a 404.
      if (!locked.__visible && !locked.__manages) throw notFound(`Announcement ${id} not found.`);
    },
    async change(tx, record) {
      await assertManagesAnnouncement(tx, record);
      if (changesNothing(data)) return { row: record, changed: [] };
      if ((data.scope !== undefined && data.scope !== record.scope) || (data.scopeId !== undefined && data.scopeId !== record.scopeId)) {
        throw badInput("scope", "an announcement stays in its group");
      }
      const createdBy = await resolveCreator(tx, data.createdBy, record.createdById);
      const publishDown = data.publishDown === undefined ? record.publishDown : data.publishDown;
      assertPublishingWindow(data.publishUp ?? record.publishUp, publishDown);
      const rank = rankOf(data.sticky ?? record.sticky, data.priority ?? record.priority);
      return { update: updateStatement(tx, ANNOUNCEMENTS_RECORDS, id, { ...columnValues(ANNOUNCEMENTS_FIELDS, { ...data, createdBy }, "update"), publishDown, rank }) };
    },
  });
  return changedRecord<Announcement>(ctx, ANNOUNCEMENTS_RECORDS, id, query as Selection);
}

/** Deletes an announcement: the group's managers and administrators. */
export async function deleteAnnouncement(ctx: RequestContext, id: number): Promise<number> {
  await changeRecord<Announcement>(ctx, ANNOUNCEMENTS_WRITES, id, {
    event: ANNOUNCEMENTS_EVENTS.announcementDeleted,
    deletes: true,
    authorize: (locked) => {
      if (!locked.__visible && !locked.__manages) throw notFound(`Announcement ${id} not found.`);
    },
    async change(tx, record) {
      await assertManagesAnnouncement(tx, record);
      await tx.tx.query(deleteStatement(tx, ANNOUNCEMENTS_RECORDS, id));
      return { row: null };
    },
  });
  return id;
}

/** A deleted group takes its announcements with it, each with its deleted event (src/groups/content.ts). */
registerGroupContent({
  area: "announcements",
  models: ["Announcement"],
  remove: (tx, groupId) => deleteScopeRecords(tx, ANNOUNCEMENTS_WRITES, { scope: "group", scopeId: groupId }, ANNOUNCEMENTS_EVENTS.announcementDeleted),
});
