import { builder } from "../graphql/builder.js";
import "./activity.js";
import { tableInput } from "../graphql/fields.js";
import { accessEnum } from "../graphql/access.js";
import { recordFields } from "../graphql/crud.js";
import { describePage } from "../common/paging.js";
import {
  GROUP_DISCOVERABILITY,
  GROUP_FIELDS,
  GROUP_JOIN_POLICY,
  GROUP_LIST,
  MEMBER_LISTS,
  createGroup,
  deleteGroup,
  getGroup,
  groupMembers,
  listGroups,
  myMembership,
  transition,
  updateGroup,
  type GroupMembers,
  type MemberEntry,
  type Transition,
} from "./service.js";

const GroupDiscoverability = accessEnum(GROUP_DISCOVERABILITY);
const GroupJoinPolicy = accessEnum(GROUP_JOIN_POLICY);

const KEY_DESCRIPTION = "The group's gidNumber or cn.";

const GroupMembershipStatus = builder.enumType("GroupMembershipStatus", {
  description: "Where the caller stands with a group.",
  values: {
    MANAGER: { value: "manager", description: "A member who manages the group." },
    MEMBER: { value: "member", description: "A member." },
    APPLICANT: { value: "applicant", description: "Asked to join a restricted group; the request waits for a manager." },
    INVITEE: { value: "invitee", description: "Invited; becomes a member by accepting (acceptGroupInvitation)." },
    NONE: { value: "none", description: "None of these (always, for anonymous callers)." },
  } as const,
});

export const GroupType = builder.prismaObject("Group", {
  description: "A group: its members see its private content (scope group, scope id = gidNumber). Hidden groups are shown to their members (and invitees) only.",
  fields: (t) => ({
    id: t.exposeID("id", { description: "The gidNumber." }),
    gidNumber: t.exposeInt("id", { description: "The group's unique number (the original's gidNumber)." }),
    cn: t.exposeString("cn", { description: "The group's alias in its URL; never changes." }),
    title: t.exposeString("title"),
    description: t.exposeString("title", { description: "The title, as the original's `description` column held it (docs/decisions.md, \"Groups\")." }),
    tags: t.exposeStringList("tags"),
    tagsText: t.string({ description: "The tags as one comma-separated string (the REST encoding).", resolve: (group) => group.tags.join(", ") }),
    publicDescription: t.exposeString("publicDescription"),
    // Null in the row itself for everyone but members and administrators (the records' privateFields).
    privateDescription: t.exposeString("privateDescription", { nullable: true, description: "Shown to the group's members and administrators; null for everyone else." }),
    joinPolicy: t.field({ type: GroupJoinPolicy, description: GROUP_JOIN_POLICY.description, resolve: (group) => group.joinPolicy }),
    discoverability: t.field({ type: GroupDiscoverability, description: GROUP_DISCOVERABILITY.description, resolve: (group) => group.discoverability }),
    url: t.string({ resolve: (group) => `/groups/${group.cn}` }),
    created: t.expose("created", { type: "DateTime" }),
    modified: t.expose("modified", { type: "DateTime" }),
    createdById: t.exposeInt("createdById", { nullable: true }),
    createdBy: t.relation("createdBy", { nullable: true }),
    myMembership: t.field({
      type: GroupMembershipStatus,
      description: "Where the caller stands with the group: MANAGER, MEMBER, APPLICANT (a request to join waits for a manager), INVITEE or NONE. The membership mutations answer the group, so `joinGroup(group:) { myMembership }` says whether the caller joined or is waiting.",
      resolve: (group, _args, ctx) => myMembership(ctx, group.id),
    }),
  }),
});

recordFields("Group", {
  type: GroupType,
  plural: "groups",
  key: { description: KEY_DESCRIPTION, parse: (raw) => String(raw) },
  read: { description: "One group the caller may see, by gidNumber or cn.", resolve: (ctx, id, query) => getGroup(ctx, String(id), query) },
  list: { description: "Groups the caller may see, searched, sorted and paged like GET /api/groups/list.", spec: GROUP_LIST, resolve: listGroups },
  create: { scope: "user", input: tableInput("CreateGroupInput", GROUP_FIELDS, "create"), resolve: createGroup },
  update: {
    scope: "user",
    input: tableInput("UpdateGroupInput", GROUP_FIELDS, "update", "Only the given fields change; the cn never does."),
    resolve: (ctx, id, input, query) => updateGroup(ctx, String(id), input, query),
  },
  remove: { scope: "user", description: "Deletes the group, its memberships and all its content; returns its gidNumber.", resolve: (ctx, id) => deleteGroup(ctx, String(id)) },
});

const GroupMemberEntryType = builder.objectRef<MemberEntry>("GroupMemberEntry").implement({
  description: "A person in a group's member list.",
  fields: (t) => ({
    id: t.exposeID("id", { description: "The user's id (the original's uidNumber)." }),
    username: t.exposeString("username"),
    name: t.exposeString("name"),
  }),
});

const GroupMembersType = builder.objectRef<GroupMembers>("GroupMembers").implement({
  description: "A group's people by status. Invitees and applicants are listed to the group's managers and administrators only (empty for everyone else).",
  fields: (t) => ({
    members: t.field({ type: [GroupMemberEntryType], description: "Every member, managers included.", resolve: (lists) => lists.members }),
    managers: t.field({ type: [GroupMemberEntryType], resolve: (lists) => lists.managers }),
    invitees: t.field({ type: [GroupMemberEntryType], resolve: (lists) => lists.invitees }),
    applicants: t.field({ type: [GroupMemberEntryType], resolve: (lists) => lists.applicants }),
  }),
});

builder.queryField("groupMembers", (t) =>
  t.field({
    type: GroupMembersType,
    description: "A group's people by status, each list paged (like GET /api/groups/{id}/members/list).",
    authScopes: { public: true },
    args: {
      id: t.arg.id({ required: true, description: KEY_DESCRIPTION }),
      list: t.arg.stringList({ description: `Statuses to list: ${MEMBER_LISTS.join(", ")} (default all).` }),
      limit: t.arg.int({ description: describePage().limit }),
      start: t.arg.int({ description: describePage().start }),
    },
    resolve: (_root, args, ctx) => groupMembers(ctx, String(args.id), args),
  }),
);

/** The membership mutations: the caller's own (group only) and a manager's about someone (group and user). */
const TRANSITIONS: { field: string; transition: Transition; description: string; aboutSomeone?: true }[] = [
  { field: "joinGroup", transition: "join", description: "Joins an open group, or asks to join a restricted one; invite-only and closed groups refuse (403)." },
  { field: "cancelGroupRequest", transition: "cancelRequest", description: "Withdraws the caller's request to join." },
  { field: "acceptGroupInvitation", transition: "acceptInvitation", description: "Accepts the caller's invitation: they become a member." },
  { field: "declineGroupInvitation", transition: "declineInvitation", description: "Declines the caller's invitation." },
  { field: "leaveGroup", transition: "leave", description: "The caller leaves the group (not its last manager: 409)." },
  { field: "inviteToGroup", transition: "invite", aboutSomeone: true, description: "Managers: invites an existing account (by username or email)." },
  { field: "approveGroupRequest", transition: "approveRequest", aboutSomeone: true, description: "Managers: makes an applicant a member." },
  { field: "denyGroupRequest", transition: "denyRequest", aboutSomeone: true, description: "Managers: refuses an applicant's request." },
  { field: "promoteGroupMember", transition: "promote", aboutSomeone: true, description: "Managers: makes a member a manager." },
  { field: "demoteGroupMember", transition: "demote", aboutSomeone: true, description: "Managers: makes a manager a plain member (not the last one: 409)." },
  { field: "removeGroupMember", transition: "remove", aboutSomeone: true, description: "Managers: removes a member or withdraws an invitation (not the last manager: 409)." },
];

for (const { field, transition: name, description, aboutSomeone } of TRANSITIONS) {
  builder.mutationField(field, (t) =>
    t.prismaField({
      type: "Group",
      nullable: true,
      description: `${description} Answers the group as the caller may now read it (null: no longer); its \`myMembership\` says where the caller now stands (APPLICANT: a request is waiting).`,
      authScopes: { user: true },
      args: {
        group: t.arg.id({ required: true, description: KEY_DESCRIPTION }),
        ...(aboutSomeone ? { user: t.arg.string({ required: true, description: "The person's username or email address." }) } : {}),
      },
      resolve: (query, _root, args, ctx) => transition(ctx, String(args.group), name, { user: (args as { user?: string }).user }, query),
    }),
  );
}
