import { builder } from "../graphql/builder.js";
import "./activity.js";
import { areaType } from "../graphql/area.js";
import { describePage } from "../common/list-spec.js";
import { GROUP_AREA } from "./area.js";
import { MEMBER_LISTS, groupMembers, myMembership, transition, type GroupMembers, type MemberEntry, type Transition } from "./service.js";

// The group's record type first: the fields below are added to it.
areaType(GROUP_AREA);

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

// The group's type and root fields come from its declaration (src/groups/area.ts); where the caller stands is the area's own.
builder.prismaObjectField("Group", "myMembership", (t) =>
  t.field({
    type: GroupMembershipStatus,
    description:
      "Where the caller stands with the group: MANAGER, MEMBER, APPLICANT (a request to join waits for a manager), INVITEE or NONE. The membership mutations answer the group, so `joinGroup(group:) { myMembership }` says whether the caller joined or is waiting.",
    resolve: (group, _args, ctx) => myMembership(ctx, group.id),
  }),
);

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
