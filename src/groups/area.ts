import { z } from "zod";
import { Prisma } from "../generated/prisma/client.js";
import { defineArea } from "../common/area.js";
import { tagsField } from "../common/fields.js";
import { insertStatement } from "../common/write-statements.js";
import { GROUPS, GROUP_DISCOVERABILITY, GROUP_JOIN_POLICY } from "./records.js";
import { groupIdOf, groupKeySql, parseGroupKey, type GroupKey } from "./identity.js";

/**
 * Words a cn may not be: the path words of /groups (GET /groups/list, /groups/{id}/members/list) and the
 * original's router (create, new, browse, …), so a group's URL never reads as an operation
 * (docs/decisions.md, "Groups").
 */
export const RESERVED_CNS = ["list", "create", "new", "members", "browse", "edit", "update", "delete", "read", "search", "join", "invite", "manage", "admin", "api"] as const;

const cn = z
  .string()
  .trim()
  .regex(/^[a-z][a-z0-9]*$/, "may hold only lowercase letters and digits, starting with a letter")
  .max(100)
  .refine((name) => !(RESERVED_CNS as readonly string[]).includes(name), `must not be a reserved word (${RESERVED_CNS.join(", ")})`);

const description = z.string().max(65_535);

/** The API document's `fields` of list and read: any key of the REST record; gidNumber always (docs/decisions.md, "Groups"). */
const FIELDS = { default: ["gidNumber", "cn", "description", "created", "created_by"], alwaysKept: ["gidNumber"], description: "Fields to return." };

/**
 * Groups, declared once (src/common/area.ts): who sees one is GROUPS (src/groups/records.ts, which the
 * group scope kind and the path lookups read too); a group's people and their transitions are the area's
 * own (src/groups/service.ts).
 */
export const GROUP_AREA = defineArea({
  area: "groups",
  model: "Group",
  plural: "groups",
  label: "Group",
  description: "A group: its members see its private content (scope group, scope id = gidNumber). Hidden groups are shown to their members (and invitees) only.",
  policy: GROUPS,
  // A path's `{id}` / `{group}` and the GraphQL `id`: the gidNumber or the cn.
  key: {
    description: "The group's gidNumber or cn.",
    parse: (raw, parameter) => parseGroupKey(raw, parameter),
    sql: (key: GroupKey, alias) => groupKeySql(key, alias),
    idOf: (ctx, raw) => groupIdOf(ctx, raw),
  },
  fields: {
    cn: {
      type: "String",
      rule: cn,
      required: true,
      only: "create",
      description: "The group's alias in its URL: lowercase letters and digits, starting with a letter (at most 100); unique; never changes.",
      rest: { description: "Group alias used in the group's URL: lowercase letters and digits, starting with a letter; unique; never changes." },
    },
    title: { type: "String", rule: z.string().trim().min(1, "must not be empty").max(255), required: true, rest: { description: "Group title." } },
    tags: tagsField,
    publicDescription: { type: "String", rule: description, description: "Shown to everyone who may see the group.", rest: { description: "Public description." } },
    privateDescription: {
      type: "String",
      rule: description,
      description: "Shown to the group's members and administrators only.",
      rest: { description: "Private description (shown to the group's members and administrators only)." },
    },
    // Required with a documented default (the API document's "Y, default open"); stored as the number (`derived`).
    joinPolicy: {
      type: GROUP_JOIN_POLICY,
      rule: GROUP_JOIN_POLICY.schema,
      required: true,
      column: false,
      default: "open",
      description: `How people become members: ${GROUP_JOIN_POLICY.description}`,
      rest: { description: `Membership join policy: open, restricted, invite_only or closed (or the original's numbers 0-3).`, privacy: true },
    },
    discoverability: {
      type: GROUP_DISCOVERABILITY,
      rule: GROUP_DISCOVERABILITY.schema,
      required: true,
      column: false,
      default: "visible",
      description: `Whether the group is listed and found: ${GROUP_DISCOVERABILITY.description} Hidden groups are shown to their members (and invitees) only.`,
      rest: { description: "Whether the group is shown in listings: visible or hidden (or 0, 1); hidden groups are shown to their members only.", privacy: true },
    },
  },
  shown: {
    id: { description: "The gidNumber.", rest: false },
    gidNumber: { from: "id", rest: "gidNumber", description: "The group's unique number (the original's gidNumber)." },
    cn: "The group's alias in its URL; never changes.",
    title: true,
    description: { from: "title", description: 'The title, as the original\'s `description` column held it (docs/decisions.md, "Groups").' },
    tags: { rest: false },
    tagsText: { type: "String", rest: "tags", description: "The tags as one comma-separated string (the REST encoding).", resolve: (group: { tags: string[] }) => group.tags.join(", ") },
    publicDescription: true,
    // Null in the row itself for everyone but members and administrators (the records' privateFields).
    privateDescription: { nullable: true, description: "Shown to the group's members and administrators; null for everyone else." },
    joinPolicy: { levels: GROUP_JOIN_POLICY, description: GROUP_JOIN_POLICY.description },
    discoverability: { levels: GROUP_DISCOVERABILITY, description: GROUP_DISCOVERABILITY.description },
    created: true,
    createdById: { rest: "created_by" },
    modified: true,
    url: { type: "String", resolve: (group: { cn: string }) => `/groups/${group.cn}` },
    createdBy: { relation: true, nullable: true },
  },
  // 1 for every group (the records kit's "published" rule).
  hidden: ["published"],
  // The caller becomes its first member and manager, in the same statement as the group and its event.
  inserts: {
    statement: (ctx, records, values, _data, userId) => Prisma.sql`created AS (${insertStatement(ctx, records, values, { skipConflictOn: ["cn"] })}),
      creator AS (INSERT INTO group_members (group_id, user_id, status, manager) SELECT id, ${userId}, 'member', TRUE FROM created)`,
    taken: (data) => `The cn ${String(data.cn)} is taken by another group.`,
  },
  list: {
    description: "Groups the caller may see, searched, sorted and paged like GET /api/groups/list.",
    sortColumns: { created: "created", title: "title", cn: "cn", gidNumber: "id", id: "id" },
    defaults: { sort: "created", sortDir: "desc", limit: 25 },
    search: { in: "title or cn", fields: ["title", "cn"] },
  },
  read: { description: "One group the caller may see, by gidNumber or cn." },
  writes: {
    by: "users",
    forbidden: "Only the group's managers or an administrator can change this group.",
    conflict: { parameter: "cn", message: "This cn is taken by another group.", column: "cn" },
    derived: (data) => ({ joinPolicy: data.joinPolicy ?? undefined, discoverability: data.discoverability ?? undefined }),
    // Deleting a group deletes everything in it (docs/decisions.md, "Deleting a group"): with the group row
    // locked, the kit removes the group's records of every area with their own deleted events and its counters
    // (a record that is a scope, src/common/scope-content.ts); then the group, and its memberships with it (cascade).
    names: ["cn", "title"],
    update: "Only the given fields change; the cn never does.",
    remove: "Deletes the group, its memberships and all its content; returns its gidNumber.",
  },
  /**
   * Requests and invitations (made, answered, withdrawn) are told to the group's managers and the person
   * concerned only (`managers`); joins, leaves, removals of members, promotions and demotions change what its
   * members list shows, and are told to whoever may see that list (`listers`: not a hidden group's invitee,
   * who reads the group but not who is in it).
   */
  events: {
    groupCreated: "A group was created; its creator is its first manager.",
    groupUpdated: "A group's fields changed; `changed` names them.",
    groupDeleted: "A group was deleted, with its memberships and its content (each record with its own deleted event, in the same transaction).",
    memberJoined: { description: "Someone joined an open group.", audience: "listers" },
    joinRequested: { description: "Someone asked to join a restricted group.", audience: "managers" },
    requestCancelled: { description: "An applicant withdrew their request.", audience: "managers" },
    requestApproved: { description: "A manager approved a request: the applicant is a member.", audience: "managers" },
    requestDenied: { description: "A manager denied a request.", audience: "managers" },
    memberInvited: { description: "A manager invited someone.", audience: "managers" },
    invitationAccepted: { description: "An invitee accepted: they are a member.", audience: "managers" },
    invitationDeclined: { description: "An invitee declined the invitation.", audience: "managers" },
    memberPromoted: { description: "A manager made a member a manager.", audience: "listers" },
    memberDemoted: { description: "A manager made a manager a plain member.", audience: "listers" },
    memberRemoved: { description: "A manager removed a member.", audience: "listers" },
    invitationWithdrawn: { description: "A manager withdrew an invitation.", audience: "managers" },
    memberLeft: { description: "A member left the group.", audience: "listers" },
  },
  // API document: 1.0 and 1.1 with identical parameters. `{id}` is the gidNumber or the cn (the original's
  // router takes both; the document types it integer): the parameter is a string.
  rest: {
    versions: ["1.0", "1.1"],
    id: { description: "The group's gidNumber or cn.", type: "string" },
    create: { path: "/groups", task: "create a group" },
    list: { path: "/groups/list", task: "list groups", response: { kind: "array" }, fields: FIELDS },
    remove: { path: "/groups/{id}", task: "delete a group" },
    read: { path: "/groups/{id}", task: "retrieve a group", fields: FIELDS },
    replace: { path: "/groups/{id}", task: "update a group" },
  },
});


/** The groups' events by name (`GROUP_EVENTS.joinRequested` is "groups.joinRequested"). */
export const GROUP_EVENTS = GROUP_AREA.eventsNamed;
