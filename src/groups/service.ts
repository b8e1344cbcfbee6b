import { z } from "zod";
import DataLoader from "dataloader";
import { byKeys, defineLoader } from "../common/loaders.js";
import { Prisma, type Group } from "../generated/prisma/client.js";
import { sqlOf, type RequestContext } from "../common/context.js";
import { ApiError, badInput, conflict, forbidden, notFound } from "../common/errors.js";
import { listSpec, pagedList, pageWindow, type ListArgs } from "../common/paging.js";
import { changedRecord, createdRecord, findVisible, forgetScopeCounts, managesSql, modelInfo, type Selection } from "../common/records.js";
import { columnValues, fieldTable, tagsField } from "../common/fields.js";
import { requireUser } from "../common/scopes.js";
import { changesNothing, parseInput, type RawInput } from "../common/validation.js";
import { writeFailure } from "../db/errors.js";
import type { SqlClient } from "../db/sql.js";
import { emailIsSql, usernameIsSql } from "../users/names.js";
import { domainEvents } from "../common/events.js";
import { changeRecord, createRecord, deleteRecord, insertStatement, updateStatement, writtenRecords } from "../common/write-path.js";
import { GROUPS, GROUP_DISCOVERABILITY, GROUP_JOIN_POLICY, joinPolicyOf } from "./records.js";
import { groupIdFromPath, groupKeySql, groupListedSql, parseGroupKey } from "./identity.js";
import { groupContents } from "./content.js";

export { GROUPS, GROUP_DISCOVERABILITY, GROUP_JOIN_POLICY } from "./records.js";

/** GET /groups/list and `groups`: sort whitelist, defaults and search (title or cn). */
export const GROUP_LIST = listSpec({
  records: GROUPS,
  sortColumns: { created: "created", title: "title", cn: "cn", gidNumber: "id", id: "id" },
  defaults: { sort: "created", sortDir: "desc", limit: 25 },
  search: { in: "title or cn", fields: ["title", "cn"] },
});

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

/** The groups' field table (src/common/fields.ts). */
export const GROUP_FIELDS = fieldTable({
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
  // Required with a documented default (the API document's "Y, default open"); the service stores the number.
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
});

export type CreateGroup = RawInput<typeof GROUP_FIELDS.create>;
export type UpdateGroup = RawInput<typeof GROUP_FIELDS.update>;

type Query = { include?: Prisma.GroupInclude; select?: Prisma.GroupSelect };

/**
 * The groups' domain events (docs/events.md). Requests and invitations (made, answered, withdrawn) are told
 * to the group's managers and the person concerned only (`managers`); joins, leaves, removals of members and
 * promotions change what the group's readers see in its members list (`readers`).
 */
export const GROUP_EVENTS = domainEvents("groups", {
  groupCreated: "A group was created; its creator is its first manager.",
  groupUpdated: "A group's fields changed; `changed` names them.",
  groupDeleted: "A group was deleted, with its memberships and its content (each record with its own deleted event, in the same transaction).",
  memberJoined: "Someone joined an open group.",
  joinRequested: { description: "Someone asked to join a restricted group.", audience: "managers" },
  requestCancelled: { description: "An applicant withdrew their request.", audience: "managers" },
  requestApproved: { description: "A manager approved a request: the applicant is a member.", audience: "managers" },
  requestDenied: { description: "A manager denied a request.", audience: "managers" },
  memberInvited: { description: "A manager invited someone.", audience: "managers" },
  invitationAccepted: { description: "An invitee accepted: they are a member.", audience: "managers" },
  invitationDeclined: { description: "An invitee declined the invitation.", audience: "managers" },
  memberPromoted: "A manager made a member a manager.",
  memberDemoted: "A manager made a manager a plain member.",
  memberRemoved: "A manager removed a member.",
  invitationWithdrawn: { description: "A manager withdrew an invitation.", audience: "managers" },
  memberLeft: "A member left the group.",
});

/** Groups on the write path (src/common/write-path.ts). */
export const GROUP_WRITES = writtenRecords({
  area: "groups",
  changedSubscription: "groupChanged",
  records: GROUPS,
  names: ["cn", "title"],
  notFound: (id) => `Group ${id} not found.`,
  forbidden: "Only the group's managers or an administrator can change this group.",
});

const CN_TAKEN = { parameter: "cn", message: "This cn is taken by another group.", column: "cn" };

// ---------------------------------------------------------------------------------------------------
// Reads

/** The group a path key names (gidNumber or cn) as the caller may see it, or 404 (hidden groups do not exist for outsiders). */
export async function getGroup(ctx: RequestContext, raw: string, query: Query = {}) {
  const group = await findVisible<Group>(ctx, GROUPS, groupKeySql(parseGroupKey(raw), "t"), query as Selection);
  if (!group) throw notFound(`Group ${String(raw).trim()} not found.`);
  return group;
}

export function listGroups(ctx: RequestContext, args: ListArgs, query: Query = {}) {
  return pagedList<Group>(GROUP_LIST, ctx, args, query as Selection);
}

/** Where a person stands with a group. */
export interface GroupRole {
  status: "member" | "invitee" | "applicant";
  manager: boolean;
}
// ---------------------------------------------------------------------------------------------------
// The caller's own membership

/** Where the caller stands with a group (`Group.myMembership`): a manager, a member, an applicant (a request waiting), an invitee, or none. */
export type MyMembership = "manager" | "member" | "applicant" | "invitee" | "none";

/** Batched per request: every group of a list costs one statement together (none for anonymous callers). */
const membershipLoader = defineLoader(
  (ctx) =>
    new DataLoader<number, MyMembership>(async (groupIds) => {
      const user = ctx.viewer.user;
      if (!user) return groupIds.map(() => "none" as const);
      const rows = await sqlOf(ctx).query<{ group_id: number; status: GroupRole["status"]; manager: boolean }>(
        Prisma.sql`SELECT group_id, status::text AS status, manager FROM group_members WHERE user_id = ${user.id} AND group_id = ANY(${[...groupIds]}::int[])`,
      );
      return byKeys(groupIds, rows, (row) => Number(row.group_id)).map((row) => (!row ? "none" : row.status === "member" && row.manager ? "manager" : row.status));
    }),
);

export const myMembership = (ctx: RequestContext, groupId: number): Promise<MyMembership> => membershipLoader(ctx).load(groupId);

// ---------------------------------------------------------------------------------------------------
// Members list

export const MEMBER_LISTS = ["members", "managers", "invitees", "applicants"] as const;
export type MemberList = (typeof MEMBER_LISTS)[number];
/** Shown to the group's managers and administrators only: who is waiting is the managers' business. */
const MANAGERS_ONLY: readonly MemberList[] = ["invitees", "applicants"];

export interface MemberEntry {
  id: number;
  username: string;
  name: string;
}
export type GroupMembers = Record<MemberList, MemberEntry[]>;

/** `list`: the statuses asked for (absent or empty: all four); unknown names are 400 naming `list`. */
export function parseMemberLists(list: readonly string[] | null | undefined): MemberList[] {
  const wanted = (list ?? []).map((name) => name.trim().toLowerCase()).filter(Boolean);
  const unknown = wanted.filter((name) => !(MEMBER_LISTS as readonly string[]).includes(name));
  if (unknown.length) throw badInput("list", `unknown status ${unknown.join(", ")}: must be among ${MEMBER_LISTS.join(", ")}`);
  return wanted.length ? MEMBER_LISTS.filter((name) => wanted.includes(name)) : [...MEMBER_LISTS];
}

/**
 * The people of a group by status, each list paged by `limit`/`start` (in user id order), in ONE statement
 * whatever the page size: the group's visibility (404; a hidden group's people are its members' and
 * administrators' business, not yet its invitees'), whether the caller manages it, and each asked list as a
 * JSON sub-select over the (group_id, status, user_id) index. Invitees and applicants are answered to
 * managers and administrators only; others get those lists empty (docs/decisions.md).
 * `members` holds every member, managers included; `managers` the members with the flag.
 */
export async function groupMembers(ctx: RequestContext, raw: string, args: { list?: readonly string[] | null; limit?: number | null; start?: number | null }): Promise<GroupMembers> {
  const key = parseGroupKey(raw);
  const lists = parseMemberLists(args.list);
  const { take, skip } = pageWindow(args);
  // Whether the caller manages the group: the records' rule (GROUPS.managedBy, administrators), as the write path asks it.
  const manages = managesSql(modelInfo(ctx.db, GROUPS.model), GROUPS, "g", ctx.viewer);
  const condition: Record<MemberList, Prisma.Sql> = {
    members: Prisma.sql`m.status = 'member'`,
    managers: Prisma.sql`m.status = 'member' AND m.manager`,
    invitees: Prisma.sql`m.status = 'invitee'`,
    applicants: Prisma.sql`m.status = 'applicant'`,
  };
  const listSql = (name: MemberList) => {
    const people = Prisma.sql`(SELECT coalesce(json_agg(json_build_object('id', p.id, 'username', p.username, 'name', p.name) ORDER BY p.id), '[]'::json)
      FROM (SELECT u.id, u.username, u.name FROM group_members m JOIN users u ON u.id = m.user_id
             WHERE m.group_id = g.id AND ${condition[name]} ORDER BY m.user_id LIMIT ${take} OFFSET ${skip}) p)`;
    return MANAGERS_ONLY.includes(name) ? Prisma.sql`CASE WHEN ${manages} THEN ${people} ELSE '[]'::json END AS ${Prisma.raw(name)}` : Prisma.sql`${people} AS ${Prisma.raw(name)}`;
  };
  const [row] = await sqlOf(ctx).query<Record<MemberList, MemberEntry[]>>(
    Prisma.sql`SELECT ${Prisma.join(lists.map(listSql))} FROM groups g WHERE ${groupKeySql(key)} AND ${groupListedSql(ctx)}`,
  );
  if (!row) throw notFound(`Group ${String(raw).trim()} not found.`);
  const answer = { members: [], managers: [], invitees: [], applicants: [] } as GroupMembers;
  for (const name of lists) answer[name] = (row[name] as MemberEntry[]).map((entry) => ({ ...entry, id: Number(entry.id) }));
  return answer;
}

// ---------------------------------------------------------------------------------------------------
// Writes

/** A group's id from a path key: a gidNumber as is (the write path answers 404/403 on the locked row), a cn by one lookup. */
async function groupIdOf(ctx: RequestContext, raw: string, parameter = "id"): Promise<number> {
  const key = parseGroupKey(raw, parameter);
  return "gidNumber" in key ? key.gidNumber : groupIdFromPath(ctx, raw, parameter);
}

/** Creates a group; the caller becomes its first member and manager, in the same statement as the group and its event. */
export async function createGroup(ctx: RequestContext, input: CreateGroup, query: Query = {}) {
  const user = requireUser(ctx);
  const data = parseInput(GROUP_FIELDS.create, input);
  const values = { ...columnValues(GROUP_FIELDS, data, "create"), joinPolicy: data.joinPolicy, discoverability: data.discoverability, createdById: user.id };
  const group = await createRecord<Group>(ctx, GROUP_WRITES, {
    event: GROUP_EVENTS.groupCreated,
    answer: { query: query as Selection },
    inserted: Prisma.sql`created AS (${insertStatement(ctx, GROUPS, values, { skipConflictOn: ["cn"] })}),
      creator AS (INSERT INTO group_members (group_id, user_id, status, manager) SELECT id, ${user.id}, 'member', TRUE FROM created)`,
  });
  if (!group) throw conflict("cn", `The cn ${data.cn} is taken by another group.`);
  return createdRecord<Group>(ctx, GROUPS, group, query as Selection);
}

/** Changes the given fields (never the cn): the group's managers and administrators; 404 for a group the caller may not know. */
export async function updateGroup(ctx: RequestContext, raw: string, input: UpdateGroup, query: Query = {}) {
  requireUser(ctx);
  const data = parseInput(GROUP_FIELDS.update, input);
  const id = await groupIdOf(ctx, raw);
  await changeRecord<Group>(ctx, GROUP_WRITES, id, {
    event: GROUP_EVENTS.groupUpdated,
    async change(tx, group) {
      if (changesNothing(data)) return { row: group, changed: [] };
      const policies = { joinPolicy: data.joinPolicy ?? undefined, discoverability: data.discoverability ?? undefined };
      return { update: updateStatement(tx, GROUPS, id, { ...columnValues(GROUP_FIELDS, data, "update"), ...policies }) };
    },
  }).catch(writeFailure({ conflict: CN_TAKEN, missing: `Group ${id} not found.` }));
  return changedRecord<Group>(ctx, GROUPS, id, query as Selection);
}

/**
 * Deletes a group and everything in it (docs/decisions.md, "Deleting a group"): in one transaction, with
 * the group row locked, each area's registered removal deletes the group's records with their own
 * deleted events (src/groups/content.ts), then the group goes and its memberships with it (cascade).
 */
export async function deleteGroup(ctx: RequestContext, raw: string): Promise<number> {
  requireUser(ctx);
  const id = await groupIdOf(ctx, raw);
  await changeRecord<Group>(ctx, GROUP_WRITES, id, {
    event: GROUP_EVENTS.groupDeleted,
    deletes: true,
    async change(tx) {
      for (const content of groupContents()) await content.remove(tx, id);
      await tx.tx.query(Prisma.sql`DELETE FROM groups WHERE id = ${id}`);
      await forgetScopeCounts(tx.tx, { scope: "group", scopeId: id });
      return { row: null };
    },
  });
  return id;
}

// ---------------------------------------------------------------------------------------------------
// Membership transitions: each one changeRecord on the group (its row locked FOR UPDATE, so two
// transitions of one group run one after the other and the last manager cannot go twice), with its event.

export type Transition =
  | "join"
  | "cancelRequest"
  | "invite"
  | "acceptInvitation"
  | "declineInvitation"
  | "approveRequest"
  | "denyRequest"
  | "promote"
  | "demote"
  | "remove"
  | "leave";

type Standing = GroupRole | null;
type Step = { sql: Prisma.Sql; event: (typeof GROUP_EVENTS)[keyof typeof GROUP_EVENTS] } | ApiError;

const refused = (message: string, parameter?: string) => (parameter ? conflict(parameter, message) : new ApiError(409, message));

/** Transitions a manager makes about someone else (`user`); the others are the caller's own. */
const BY_MANAGERS: readonly Transition[] = ["invite", "approveRequest", "denyRequest", "promote", "demote", "remove"];

/**
 * The membership rules as one table: from where the person stands (`standing`), under the group's policy,
 * the statement of the transition and its event, or the refusal. `managers`: how many managers the group
 * has (a group never loses its last one).
 */
function step(transition: Transition, standing: Standing, group: { id: number; joinPolicy: number }, userId: number, managers: number): Step {
  const where = Prisma.sql`group_id = ${group.id} AND user_id = ${userId}`;
  const remove = Prisma.sql`DELETE FROM group_members WHERE ${where}`;
  const set = (fields: Prisma.Sql) => Prisma.sql`UPDATE group_members SET ${fields} WHERE ${where}`;
  const insert = (status: string) => Prisma.sql`INSERT INTO group_members (group_id, user_id, status, manager) VALUES (${group.id}, ${userId}, ${status}::"GroupMemberStatus", FALSE)`;
  const isMember = standing?.status === "member";
  const lastManager = isMember && standing!.manager && managers <= 1;
  const who = BY_MANAGERS.includes(transition) ? "user" : undefined;
  switch (transition) {
    case "join":
      if (isMember) return refused("You are already a member of this group.");
      if (standing?.status === "applicant") return refused("You have asked to join this group already; a manager will answer.");
      if (standing?.status === "invitee") return refused("You are invited to this group: accept the invitation (acceptGroupInvitation).");
      switch (joinPolicyOf(group.joinPolicy)) {
        case "open":
          return { sql: insert("member"), event: GROUP_EVENTS.memberJoined };
        case "restricted":
          return { sql: insert("applicant"), event: GROUP_EVENTS.joinRequested };
        case "invite_only":
          return forbidden("This group takes members by invitation only.");
        case "closed":
          return forbidden("This group is closed: it takes no requests.");
      }
    case "cancelRequest":
      return standing?.status === "applicant" ? { sql: remove, event: GROUP_EVENTS.requestCancelled } : refused("You have no pending request to join this group.");
    case "acceptInvitation":
      return standing?.status === "invitee" ? { sql: set(Prisma.sql`status = 'member'`), event: GROUP_EVENTS.invitationAccepted } : refused("You have no invitation to this group.");
    case "declineInvitation":
      return standing?.status === "invitee" ? { sql: remove, event: GROUP_EVENTS.invitationDeclined } : refused("You have no invitation to this group.");
    case "leave":
      if (!isMember) return refused("You are not a member of this group.");
      if (lastManager) return refused("You are the group's last manager: make another member a manager first, or delete the group.");
      return { sql: remove, event: GROUP_EVENTS.memberLeft };
    case "invite":
      if (isMember) return refused("This user is a member already.", who);
      if (standing?.status === "invitee") return refused("This user is invited already.", who);
      if (standing?.status === "applicant") return refused("This user has asked to join: approve the request instead.", who);
      return { sql: insert("invitee"), event: GROUP_EVENTS.memberInvited };
    case "approveRequest":
      return standing?.status === "applicant" ? { sql: set(Prisma.sql`status = 'member'`), event: GROUP_EVENTS.requestApproved } : refused("This user has no pending request.", who);
    case "denyRequest":
      return standing?.status === "applicant" ? { sql: remove, event: GROUP_EVENTS.requestDenied } : refused("This user has no pending request.", who);
    case "promote":
      if (!isMember) return refused("Only members can be made managers.", who);
      if (standing!.manager) return refused("This user is a manager already.", who);
      return { sql: set(Prisma.sql`manager = TRUE`), event: GROUP_EVENTS.memberPromoted };
    case "demote":
      if (!isMember || !standing!.manager) return refused("This user is not a manager.", who);
      if (lastManager) return refused("This user is the group's last manager: a group keeps at least one.", who);
      return { sql: set(Prisma.sql`manager = FALSE`), event: GROUP_EVENTS.memberDemoted };
    case "remove":
      if (!standing || standing.status === "applicant") return refused("This user is neither a member nor invited.", who);
      if (lastManager) return refused("This user is the group's last manager: a group keeps at least one.", who);
      // Withdrawing an invitation is the invitee's and the managers' business, as the invitation was.
      return { sql: remove, event: standing.status === "invitee" ? GROUP_EVENTS.invitationWithdrawn : GROUP_EVENTS.memberRemoved };
  }
}

/** A person's standing in a group (status, manager flag; NULLs: none) and how many managers the group has. */
export const standingSql = (groupId: number, userId: number) =>
  Prisma.sql`SELECT m.status::text AS status, m.manager,
                    (SELECT count(*)::int FROM group_members x WHERE x.group_id = ${groupId} AND x.status = 'member' AND x.manager) AS managers
               FROM (SELECT 1) one LEFT JOIN group_members m ON m.group_id = ${groupId} AND m.user_id = ${userId}`;

/**
 * The account a manager's transition names: a username or an email address, each regardless of case (the
 * sign-up and sign-in rule, src/users/names.ts); existing accounts only, else 404 naming `user`. Asked
 * inside the transition, after the caller is known to manage the group: nobody else learns from the answer
 * whether an account exists.
 */
async function accountNamed(tx: RequestContext & { tx: SqlClient }, text: string, parameter = "user"): Promise<number> {
  const [row] = await tx.tx.query<{ id: number }>(Prisma.sql`SELECT id FROM users WHERE ${usernameIsSql(text)} OR ${emailIsSql(text)} ORDER BY id LIMIT 1`);
  if (!row) throw new ApiError(404, `No account with the username or email ${text}.`, [{ parameter, message: "no account with this username or email" }]);
  return Number(row.id);
}

/**
 * One membership transition of group `raw` (gidNumber or cn): the caller's own, or a manager's about
 * `user` (a username or email). Answers the group as the caller may read it afterwards (null: they left a
 * hidden group).
 *
 * Who gets past the locked row: for a manager's transition, a caller who may not know the group gets 404
 * and one who may but does not manage it 403, both before the person named is looked up. The caller's own
 * transitions need the group to be one they may know — except an applicant withdrawing their request from
 * a group made hidden since they asked (docs/decisions.md, "Groups"): anyone else gets 404 there.
 */
export async function transition(ctx: RequestContext, raw: string, name: Transition, options: { user?: string | null } = {}, query: Query = {}) {
  const caller = requireUser(ctx);
  const byManager = BY_MANAGERS.includes(name);
  const named = options.user?.trim() ?? "";
  if (byManager && !named) throw badInput("user", "is required: the username or email of the person concerned");
  const id = await groupIdOf(ctx, raw, "group");
  const missing = () => notFound(`Group ${String(raw).trim()} not found.`);
  let visible = false;
  await changeRecord<Group>(ctx, GROUP_WRITES, id, {
    // Each transition's own event is chosen on the locked row (`change` answers it).
    event: GROUP_EVENTS.groupUpdated,
    authorize(locked) {
      visible = locked.__visible;
      if (byManager && !locked.__visible) throw missing();
      if (byManager && !locked.__manages) throw forbidden("Only the group's managers or an administrator can do this.");
      if (!byManager && !locked.__visible && name !== "cancelRequest") throw missing();
    },
    async change(tx, group) {
      const subject = byManager ? await accountNamed(tx, named) : caller.id;
      const [standing] = await tx.tx.query<{ status: GroupRole["status"]; manager: boolean; managers: number }>(standingSql(id, subject));
      const found = standing!.status ? { status: standing!.status, manager: standing!.manager } : null;
      if (!visible && found?.status !== "applicant") throw missing();
      const next = step(name, found, group, subject, standing!.managers);
      if (next instanceof ApiError) throw next;
      await tx.tx.query(next.sql);
      return { row: group, changed: ["membership"], subjectId: subject, event: next.event };
    },
  });
  return changedRecord<Group>(ctx, GROUPS, id, query as Selection);
}
