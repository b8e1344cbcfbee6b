import DataLoader from "dataloader";
import { byKeys, defineLoader } from "../common/loaders.js";
import { Prisma, type Group } from "../generated/prisma/client.js";
import { sqlOf, type RequestContext } from "../common/context.js";
import { ApiError, badInput, conflict, forbidden, notFound } from "../common/errors.js";
import { pageWindow } from "../common/list-spec.js";
import { changedRecord } from "../common/record-reads.js";
import { managesSql } from "../common/visibility.js";
import { modelInfo } from "../common/model.js";
import { type Selection } from "../common/row-reading.js";
import { requireUser } from "../common/scopes.js";
import type { SqlClient } from "../db/sql.js";
import { accountNamed } from "../users/names.js";
import { changeRecord } from "../common/write-path.js";
import { GROUPS, joinPolicyOf } from "./records.js";
import { groupIdOf, groupKeySql, groupListedSql, parseGroupKey } from "./identity.js";
import { GROUP_AREA, GROUP_EVENTS } from "./area.js";

type Query = { include?: Prisma.GroupInclude; select?: Prisma.GroupSelect };

export { GROUPS, GROUP_DISCOVERABILITY, GROUP_JOIN_POLICY } from "./records.js";
export { GROUP_AREA, GROUP_EVENTS, RESERVED_CNS } from "./area.js";

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
  // Whether the caller manages the group: the records' rule (the group kind's managers, as GROUPS.isScope says, and administrators), as the write path asks it.
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
  await changeRecord<Group>(ctx, GROUP_AREA.writesOf, id, {
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
