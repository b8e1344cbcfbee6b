import { z } from "zod";
import { Prisma, type ActivityEntry } from "../generated/prisma/client.js";
import { defineArea } from "../common/area.js";
import { createdByField, createdField, fieldTable } from "../common/fields.js";
import { records } from "../common/records.js";
import { scopeKindField } from "../common/scope-kinds.js";
import { sqlOf } from "../common/context.js";
import { createActivityEntry, createdBefore, createdFrom, heardBy, heardTotal, sentToOneOf, showsActor, shownRecipients, updateActivityEntry } from "./service.js";

/** Activity entries, shown to their recipients (plus their creator and administrators), never by level. */
export const ACTIVITY_RECORDS = records({
  model: "ActivityEntry",
  scoped: true,
  // "Published" is sent to the site (public): what the list's counters count by. Reads ask `audience`.
  published: { field: "sentToSite", value: 1 },
  audience: { hears: heardBy, total: heardTotal },
  creator: "createdById",
  // An anonymous entry's actor is shown to its author and administrators only.
  anonymous: "anonymous",
});

const flag = z.number().int().min(0).max(1);

/** The activity entry's fields (src/common/fields.ts). */
const fields = {
  scope: { type: "String", rule: scopeKindField, required: "create", description: "Scope type (site, group, member, …).", rest: { description: "Scope type (group, member, etc.).", privacy: true } },
  scopeId: { type: "Int", rule: z.number().int().min(0), required: "create", description: "Scope object ID.", rest: { description: "Scope object ID.", privacy: true } },
  action: { type: "String", rule: z.string().trim().min(1, "must not be empty").max(255), required: "create", rest: { description: "Action taken." } },
  alias: { type: "String", rule: z.string().trim().max(255), rest: { description: "Entry alias." } },
  description: { type: "String", rule: z.string().trim().min(1, "must not be empty").max(65535), required: "create", rest: { description: "Description of the activity." } },
  created: createdField,
  createdBy: { ...createdByField, rest: { name: "crated_by", alsoNamed: ["created_by"], description: "User ID of the creator (0: the caller); spelled as the API document spells it, created_by is accepted too." } },
  anonymous: { type: "Int", rule: flag, default: 0, description: "1: the actor is shown only to the author and administrators.", rest: { description: "0 = false, 1 = true.", privacy: true } },
  parent: { type: "Int", rule: z.number().int().min(0), default: 0, column: "parentId", description: "ID of the parent entry (0: none); must exist.", rest: { description: "ID of parent activity." } },
  recipients: {
    type: "String",
    rule: z.string().trim().max(4000),
    default: "1",
    column: false,
    description: "Comma-separated <scope>:<scope_id> pairs (a bare id is a member); 1: the entry's own scope.",
    rest: { description: "Comma-separated list of <scope>:<scope_id> pairs (1: the entry's own scope).", privacy: true },
  },
  recipientChannel: {
    type: "Int",
    rule: z.number().int().min(0).max(1),
    only: "update",
    column: false,
    description: "Recipient channels: 1 re-addresses the entry to its own scope, 0 to nobody but its author.",
    rest: { name: "recipients", description: "List of recipient channels: 1 the entry's own scope, 0 nobody but the author.", privacy: true },
  },
} as const;

/** The entries' inputs as the service parses them (the declaration's table is the same fields), made apart from the declaration, whose own writes' types read it. */
export const ACTIVITY_FIELDS = fieldTable(fields);

/**
 * The activity feed's entries (src/common/area.ts): what happened in a scope, sent to its recipients, who
 * hear it (docs/decisions.md, "Activity"). Who may address whom, and an entry that follows its record, are the
 * area's own writes (src/activity/service.ts, `own`); the feed, its consumer and the readers' revision stay there too.
 */
export const ACTIVITY_AREA = defineArea({
  area: "activity",
  model: "ActivityEntry",
  plural: "activityEntries",
  label: "Activity entry",
  description: "An activity entry: what happened in a scope, sent to its recipients.",
  policy: ACTIVITY_RECORDS,
  fields,
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
  groupContent: {
    models: ["ActivityRecipient"],
    remove: (tx, groupId) => sqlOf(tx).query(Prisma.sql`DELETE FROM activity_recipients WHERE scope = 'group' AND scope_id = ${groupId}`),
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
