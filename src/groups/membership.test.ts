import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "graphql";
import type { TypedDocumentNode } from "@graphql-typed-document-node/core";
import { startServer, type TestServer, type TestUser } from "../../test/server.js";
import type { StoredEvent } from "../common/outbox.js";
import { readableBy, viewerKey } from "../events/subscriptions.js";
import type { Viewer } from "../common/context.js";

/**
 * The membership rules (issue 17), as a table: where the person concerned stands, who calls, the group's
 * join policy and the transition → the standing afterwards, or the refusal's code. Every row runs through
 * real HTTP GraphQL on a fresh group whose only manager is `owner` (so "last manager" rows are real).
 */
type Standing = "none" | "applicant" | "invitee" | "member" | "manager";
type Caller = "self" | "manager" | "admin" | "member" | "stranger";
type Policy = "open" | "restricted" | "invite_only" | "closed";
type Outcome = Standing | "FORBIDDEN" | "CONFLICT" | "NOT_FOUND";

const FIELD: Record<string, { field: string; aboutSomeone: boolean }> = {
  join: { field: "joinGroup", aboutSomeone: false },
  cancel: { field: "cancelGroupRequest", aboutSomeone: false },
  accept: { field: "acceptGroupInvitation", aboutSomeone: false },
  decline: { field: "declineGroupInvitation", aboutSomeone: false },
  leave: { field: "leaveGroup", aboutSomeone: false },
  invite: { field: "inviteToGroup", aboutSomeone: true },
  approve: { field: "approveGroupRequest", aboutSomeone: true },
  deny: { field: "denyGroupRequest", aboutSomeone: true },
  promote: { field: "promoteGroupMember", aboutSomeone: true },
  demote: { field: "demoteGroupMember", aboutSomeone: true },
  remove: { field: "removeGroupMember", aboutSomeone: true },
};
type Transition = keyof typeof FIELD;

// [standing of the person concerned, caller, policy, transition, outcome]
const RULES: [Standing, Caller, Policy, Transition, Outcome][] = [
  // Joining follows the policy.
  ["none", "self", "open", "join", "member"],
  ["none", "self", "restricted", "join", "applicant"],
  ["none", "self", "invite_only", "join", "FORBIDDEN"],
  ["none", "self", "closed", "join", "FORBIDDEN"],
  ["member", "self", "open", "join", "CONFLICT"],
  ["applicant", "self", "restricted", "join", "CONFLICT"],
  ["invitee", "self", "open", "join", "CONFLICT"],
  // Requests: withdrawn by the applicant, answered by managers and administrators only.
  ["applicant", "self", "restricted", "cancel", "none"],
  ["none", "self", "restricted", "cancel", "CONFLICT"],
  ["applicant", "manager", "restricted", "approve", "member"],
  ["applicant", "admin", "restricted", "approve", "member"],
  ["applicant", "member", "restricted", "approve", "FORBIDDEN"],
  ["applicant", "stranger", "restricted", "approve", "FORBIDDEN"],
  ["applicant", "self", "restricted", "approve", "FORBIDDEN"],
  ["applicant", "manager", "restricted", "deny", "none"],
  ["member", "manager", "restricted", "approve", "CONFLICT"],
  ["none", "manager", "restricted", "deny", "CONFLICT"],
  // Invitations: made by managers (also in closed and invite-only groups), answered by the invitee.
  ["none", "manager", "invite_only", "invite", "invitee"],
  ["none", "manager", "closed", "invite", "invitee"],
  ["none", "admin", "open", "invite", "invitee"],
  ["none", "member", "open", "invite", "FORBIDDEN"],
  ["none", "stranger", "open", "invite", "FORBIDDEN"],
  ["invitee", "manager", "open", "invite", "CONFLICT"],
  ["member", "manager", "open", "invite", "CONFLICT"],
  ["applicant", "manager", "restricted", "invite", "CONFLICT"],
  ["invitee", "self", "invite_only", "accept", "member"],
  ["invitee", "self", "closed", "accept", "member"],
  ["none", "self", "open", "accept", "CONFLICT"],
  ["invitee", "self", "invite_only", "decline", "none"],
  ["member", "self", "open", "decline", "CONFLICT"],
  // Managers come and go; the last one stays.
  ["member", "manager", "open", "promote", "manager"],
  ["member", "member", "open", "promote", "FORBIDDEN"],
  ["manager", "manager", "open", "promote", "CONFLICT"],
  ["invitee", "manager", "open", "promote", "CONFLICT"],
  ["manager", "manager", "open", "demote", "member"],
  ["member", "manager", "open", "demote", "CONFLICT"],
  ["member", "manager", "open", "remove", "none"],
  ["invitee", "manager", "open", "remove", "none"],
  ["manager", "admin", "open", "remove", "none"],
  ["member", "member", "open", "remove", "FORBIDDEN"],
  ["applicant", "manager", "restricted", "remove", "CONFLICT"],
  ["member", "self", "open", "leave", "none"],
  ["manager", "self", "open", "leave", "none"],
  ["none", "self", "open", "leave", "CONFLICT"],
  ["invitee", "self", "open", "leave", "CONFLICT"],
  // Each answer is the person's own: an applicant has no invitation, an invitee no request.
  ["applicant", "self", "restricted", "accept", "CONFLICT"],
  ["applicant", "self", "restricted", "decline", "CONFLICT"],
  ["invitee", "self", "open", "cancel", "CONFLICT"],
  ["manager", "member", "open", "demote", "FORBIDDEN"],
  ["member", "admin", "open", "promote", "manager"],
];

/** Managers and administrators address a hidden group by its gidNumber like a visible one: every such row again, on a hidden group. */
const ON_A_HIDDEN_GROUP = RULES.filter(([, caller, , transition]) => (caller === "manager" || caller === "admin") && FIELD[transition]!.aboutSomeone);

/**
 * Each transition's event: type and audience (docs/events.md). Requests and invitations, the applicant's
 * and invitee's business, are told to the managers and the person concerned only (`managers`); the others
 * change what the group's readers see in its members list (`readers`). Every one names the person concerned.
 */
const EVENTS: [Standing, Caller, Policy, Transition, string, "listers" | "managers"][] = [
  ["none", "self", "open", "join", "groups.memberJoined", "listers"],
  ["none", "self", "restricted", "join", "groups.joinRequested", "managers"],
  ["applicant", "self", "restricted", "cancel", "groups.requestCancelled", "managers"],
  ["applicant", "manager", "restricted", "approve", "groups.requestApproved", "managers"],
  ["applicant", "manager", "restricted", "deny", "groups.requestDenied", "managers"],
  ["none", "manager", "invite_only", "invite", "groups.memberInvited", "managers"],
  ["invitee", "self", "invite_only", "accept", "groups.invitationAccepted", "managers"],
  ["invitee", "self", "invite_only", "decline", "groups.invitationDeclined", "managers"],
  ["invitee", "manager", "invite_only", "remove", "groups.invitationWithdrawn", "managers"],
  ["member", "manager", "open", "remove", "groups.memberRemoved", "listers"],
  ["member", "manager", "open", "promote", "groups.memberPromoted", "listers"],
  ["manager", "manager", "open", "demote", "groups.memberDemoted", "listers"],
  ["member", "self", "open", "leave", "groups.memberLeft", "listers"],
];

/** The last manager: the group's owner, about themselves or by an administrator. */
const LAST_MANAGER: [Caller, Transition][] = [
  ["self", "leave"],
  ["admin", "demote"],
  ["admin", "remove"],
];

const gql = <R = Record<string, unknown>>(source: string) => parse(source) as unknown as TypedDocumentNode<R, Record<string, unknown>>;

let server: TestServer;
let admin: TestUser;
let serial = 0;

beforeAll(async () => {
  server = await startServer();
  admin = await server.user({ admin: true });
});
afterAll(() => server?.close());

async function groupWith(policy: Policy, owner: TestUser, discoverability = "visible") {
  serial += 1;
  const created = await server.rest("POST", "/groups", {
    token: owner.token,
    body: { cn: `rules${serial}x${Date.now() % 100000}`, title: `Rules ${serial}`, join_policy: policy, discoverability, private_description: "secret plans" },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.gidNumber as number;
}

async function standingOf(groupId: number, userId: number): Promise<Standing> {
  const row = await server.app.db.prisma.groupMember.findUnique({ where: { groupId_userId: { groupId, userId } } });
  if (!row) return "none";
  return row.manager ? "manager" : row.status;
}

async function place(groupId: number, user: TestUser, standing: Standing) {
  if (standing === "none") return;
  await server.app.db.prisma.groupMember.create({
    data: { groupId, userId: user.id, status: standing === "manager" ? "member" : standing, manager: standing === "manager" },
  });
}

async function run(transition: Transition, groupId: number, caller: TestUser, subject: TestUser) {
  const { field, aboutSomeone } = FIELD[transition]!;
  const document = aboutSomeone
    ? gql(`mutation($group: ID!, $user: String!) { ${field}(group: $group, user: $user) { id } }`)
    : gql(`mutation($group: ID!) { ${field}(group: $group) { id } }`);
  return server.graphql(document, aboutSomeone ? { group: String(groupId), user: subject.username } : { group: String(groupId) }, caller.token);
}

describe("Group.myMembership (issue 32: joining a restricted group answered the group, and nothing said the request waits)", () => {
  it("says where the caller stands: MANAGER, MEMBER, APPLICANT, INVITEE or NONE (anonymous callers: NONE)", async () => {
    const owner = await server.user();
    const groupId = await groupWith("restricted", owner);
    const ask = gql<{ group: { myMembership: string } }>(`query($id: ID!) { group(id: $id) { myMembership } }`);
    const standings: Standing[] = ["none", "applicant", "invitee", "member", "manager"];
    for (const standing of standings) {
      const person = await server.user();
      await place(groupId, person, standing);
      const answer = await server.graphql(ask, { id: String(groupId) }, person.token);
      expect(answer.data?.group.myMembership, standing).toBe(standing.toUpperCase());
    }
    expect((await server.graphql(ask, { id: String(groupId) })).data?.group.myMembership).toBe("NONE");
    // A list asks once for all of its groups (one statement per request, batched).
    const listed = await server.graphql(gql<{ groups: { items: { myMembership: string }[] } }>(`{ groups(limit: 100) { items { id myMembership } } }`), {}, owner.token);
    expect(listed.errors).toEqual([]);
    expect(listed.data!.groups.items.some((item) => item.myMembership === "MANAGER")).toBe(true);
  });

  it("the join mutations answer it: a restricted group's request is APPLICANT, an open group's join MEMBER", async () => {
    const [owner, joiner] = await Promise.all([server.user(), server.user()]);
    const join = gql<{ joinGroup: { myMembership: string } }>(`mutation($group: ID!) { joinGroup(group: $group) { myMembership } }`);
    const restricted = await server.graphql(join, { group: String(await groupWith("restricted", owner)) }, joiner.token);
    expect(restricted.data?.joinGroup.myMembership).toBe("APPLICANT");
    const open = await server.graphql(join, { group: String(await groupWith("open", owner)) }, joiner.token);
    expect(open.data?.joinGroup.myMembership).toBe("MEMBER");
  });
});

describe("membership transitions (table)", () => {
  const rows = [...RULES.map((rule) => [...rule, "visible"] as const), ...ON_A_HIDDEN_GROUP.map((rule) => [...rule, "hidden"] as const)];
  for (const [standing, caller, policy, transition, outcome, discoverability] of rows) {
    it(`${standing} · ${caller} · ${policy}${discoverability === "hidden" ? " hidden" : ""} · ${transition} → ${outcome}`, async () => {
      const [owner, subject, member, stranger] = await Promise.all([server.user(), server.user(), server.user(), server.user()]);
      const groupId = await groupWith(policy, owner, discoverability);
      await place(groupId, subject, standing);
      await place(groupId, member, "member");
      const callers: Record<Caller, TestUser> = { self: subject, manager: owner, admin, member, stranger };
      const result = await run(transition, groupId, callers[caller], subject);
      if (["FORBIDDEN", "CONFLICT", "NOT_FOUND"].includes(outcome)) {
        expect(result.errors[0]?.extensions?.code, JSON.stringify(result.errors)).toBe(outcome);
        expect(await standingOf(groupId, subject.id)).toBe(standing);
      } else {
        expect(result.errors, JSON.stringify(result.errors)).toEqual([]);
        expect(await standingOf(groupId, subject.id)).toBe(outcome);
      }
      // The owner stays the manager whatever happened to someone else.
      expect(await standingOf(groupId, owner.id)).toBe("manager");
    });
  }

  for (const [caller, transition] of LAST_MANAGER) {
    it(`the last manager cannot go: ${caller} · ${transition} → CONFLICT naming it`, async () => {
      const owner = await server.user();
      const groupId = await groupWith("open", owner);
      const result = await run(transition, groupId, caller === "self" ? owner : admin, owner);
      expect(result.errors[0]?.extensions?.code).toBe("CONFLICT");
      expect(result.errors[0]?.message).toMatch(/last manager/);
      expect(await standingOf(groupId, owner.id)).toBe("manager");
    });
  }

  it("two managers demoting each other at once keep one manager (the group row is locked)", async () => {
    const [first, second] = await Promise.all([server.user(), server.user()]);
    const groupId = await groupWith("open", first);
    await place(groupId, second, "manager");
    const results = await Promise.all([run("demote", groupId, first, second), run("demote", groupId, second, first)]);
    expect(results.filter((result) => result.errors.length === 0)).toHaveLength(1);
    const managers = await server.app.db.prisma.groupMember.count({ where: { groupId, manager: true } });
    expect(managers).toBe(1);
  });

  it("a hidden group is not found by strangers, whatever they try; its invitee may read and accept", async () => {
    const [owner, stranger, invitee] = await Promise.all([server.user(), server.user(), server.user()]);
    const groupId = await groupWith("open", owner, "hidden");
    expect((await run("join", groupId, stranger, stranger)).errors[0]?.extensions?.code).toBe("NOT_FOUND");
    expect((await server.rest("GET", `/groups/${groupId}`, { token: stranger.token })).status).toBe(404);
    expect((await run("invite", groupId, owner, invitee)).errors).toEqual([]);
    const fields = { fields: "gidNumber,private_description" };
    const read = await server.rest("GET", `/groups/${groupId}`, { token: invitee.token, query: fields });
    expect(read.status).toBe(200);
    // The key is asked for and answered: null to an invitee (not a member yet), the text to a member.
    expect(read.body).toEqual({ gidNumber: groupId, private_description: null });
    expect((await run("accept", groupId, invitee, invitee)).errors).toEqual([]);
    expect((await server.rest("GET", `/groups/${groupId}`, { token: invitee.token, query: fields })).body).toEqual({ gidNumber: groupId, private_description: "secret plans" });
  });

  it("a caller who joins and revalidates their copy of the group gets its private description, not 304: the ETag says whether private fields were masked", async () => {
    const [owner, joiner] = await Promise.all([server.user(), server.user()]);
    const groupId = await groupWith("open", owner);
    const fields = { fields: "gidNumber,private_description" };
    const outside = await server.rest("GET", `/groups/${groupId}`, { token: joiner.token, query: fields });
    expect(outside.body).toEqual({ gidNumber: groupId, private_description: null });
    const etag = outside.headers.get("etag")!;
    expect((await run("join", groupId, joiner, joiner)).errors).toEqual([]);
    const inside = await server.rest("GET", `/groups/${groupId}`, { token: joiner.token, query: fields, headers: { "if-none-match": etag } });
    expect(inside.status).toBe(200);
    expect(inside.body).toEqual({ gidNumber: groupId, private_description: "secret plans" });
    expect(inside.headers.get("etag")).not.toBe(etag);
    // The member's own copy still revalidates.
    expect((await server.rest("GET", `/groups/${groupId}`, { token: joiner.token, query: fields, headers: { "if-none-match": inside.headers.get("etag")! } })).status).toBe(304);
  });

  it("a group's ETag works as If-Match whether the reader saw its private fields or not", async () => {
    const owner = await server.user();
    const groupId = await groupWith("open", owner);
    const put = (etag: string, title: string) =>
      server.rest("PUT", `/groups/${groupId}`, { token: owner.token, headers: { "If-Match": etag }, body: { title, join_policy: "open", discoverability: "visible", private_description: "secret plans" } });
    const shown = (await server.rest("GET", `/groups/${groupId}`, { token: owner.token })).headers.get("etag")!;
    const masked = (await server.rest("GET", `/groups/${groupId}`)).headers.get("etag")!;
    expect(masked).not.toBe(shown);
    const first = await put(shown, "Changed with the member's ETag");
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect((await put(shown, "Stale")).status).toBe(412);
    const anonymous = (await server.rest("GET", `/groups/${groupId}`)).headers.get("etag")!;
    const second = await put(anonymous, "Changed with the anonymous reader's ETag");
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect((await put(anonymous, "Stale")).status).toBe(412);
  });

  it("an invitee reads the hidden group that invited them, but neither finds it in the list and its total nor sees its people", async () => {
    const [owner, invitee, stranger] = await Promise.all([server.user(), server.user(), server.user()]);
    const word = `hush${serial}x${Date.now().toString(36)}`;
    const created = await server.rest("POST", "/groups", { token: owner.token, body: { cn: word, title: `Hidden ${word}`, join_policy: "invite_only", discoverability: "hidden" } });
    const groupId = created.body.gidNumber as number;
    expect((await run("invite", groupId, owner, invitee)).errors).toEqual([]);
    expect((await server.rest("GET", `/groups/${groupId}`, { token: invitee.token })).status).toBe(200);
    const list = (user: TestUser) => server.rest("GET", "/groups/list", { token: user.token, query: { search: word } });
    for (const user of [invitee, stranger]) {
      const found = await list(user);
      expect(found.body, user === invitee ? "invitee" : "stranger").toEqual([]);
      expect(found.headers.get("X-Total-Count")).toBe("0");
    }
    expect((await list(owner)).headers.get("X-Total-Count")).toBe("1");
    // Its people: the members (and administrators) only; to an invitee the group is only itself until they accept.
    for (const user of [invitee, stranger]) expect((await server.rest("GET", `/groups/${groupId}/members/list`, { token: user.token })).status).toBe(404);
    expect((await server.rest("GET", `/groups/${groupId}/members/list`)).status).toBe(404);
    const people = gql<{ groupMembers: unknown }>(`query($id: ID!) { groupMembers(id: $id) { members { username } } }`);
    expect((await server.graphql(people, { id: String(groupId) }, invitee.token)).errors[0]?.extensions?.code).toBe("NOT_FOUND");
    expect((await run("accept", groupId, invitee, invitee)).errors).toEqual([]);
    expect((await server.rest("GET", `/groups/${groupId}/members/list`, { token: invitee.token })).status).toBe(200);
  });

  it("an applicant of a group made hidden since may still withdraw the request (and then no longer finds the group)", async () => {
    const [owner, applicant] = await Promise.all([server.user(), server.user()]);
    const groupId = await groupWith("restricted", owner);
    expect((await run("join", groupId, applicant, applicant)).errors).toEqual([]);
    const hide = await server.rest("PUT", `/groups/${groupId}`, { token: owner.token, body: { title: "Now hidden", join_policy: "restricted", discoverability: "hidden" } });
    expect(hide.status, JSON.stringify(hide.body)).toBe(200);
    expect((await server.rest("GET", `/groups/${groupId}`, { token: applicant.token })).status).toBe(404);
    // Anything but withdrawing is as for a stranger: the group is not found.
    expect((await run("join", groupId, applicant, applicant)).errors[0]?.extensions?.code).toBe("NOT_FOUND");
    expect((await run("accept", groupId, applicant, applicant)).errors[0]?.extensions?.code).toBe("NOT_FOUND");
    const cancelled = await run("cancel", groupId, applicant, applicant);
    expect(cancelled.errors, JSON.stringify(cancelled.errors)).toEqual([]);
    expect(cancelled.data).toEqual({ cancelGroupRequest: null });
    expect(await standingOf(groupId, applicant.id)).toBe("none");
    expect((await run("cancel", groupId, applicant, applicant)).errors[0]?.extensions?.code).toBe("NOT_FOUND");
  });

  it("a hidden group's members list is 404 to strangers and anonymous callers, as a missing group's", async () => {
    const owner = await server.user();
    const stranger = await server.user();
    const groupId = await groupWith("open", owner, "hidden");
    for (const token of [stranger.token, undefined]) {
      const answer = await server.rest("GET", `/groups/${groupId}/members/list`, { token });
      expect(answer.status).toBe(404);
      const missing = await server.rest("GET", "/groups/2147483000/members/list", { token });
      expect(JSON.stringify(answer.body)).toBe(JSON.stringify(missing.body).replaceAll("2147483000", String(groupId)));
    }
    expect((await server.rest("GET", `/groups/${groupId}/members/list`, { token: owner.token })).status).toBe(200);
    expect((await server.rest("GET", `/groups/${groupId}/members/list`, { token: admin.token })).status).toBe(200);
  });

  it("a user's account is resolved only for the group's managers: others get the same answer whether it exists or not", async () => {
    const [owner, member, stranger, someone] = await Promise.all([server.user(), server.user(), server.user(), server.user()]);
    const invite = gql(`mutation($group: ID!, $user: String!) { inviteToGroup(group: $group, user: $user) { id } }`);
    for (const discoverability of ["visible", "hidden"]) {
      const groupId = await groupWith("invite_only", owner, discoverability);
      await place(groupId, member, "member");
      for (const caller of [member, stranger]) {
        for (const field of Object.values(FIELD).filter((entry) => entry.aboutSomeone)) {
          const document = gql(`mutation($group: ID!, $user: String!) { ${field.field}(group: $group, user: $user) { id } }`);
          const answers = [];
          for (const user of [someone.username, `${someone.username}@example.test`, "nobody-like-this", "nobody@nowhere.test"]) {
            const result = await server.graphql(document, { group: String(groupId), user }, caller.token);
            answers.push({ message: result.errors[0]?.message, extensions: result.errors[0]?.extensions });
          }
          const label = `${discoverability} · ${caller === member ? "member" : "stranger"} · ${field.field}`;
          expect(answers[0]!.extensions?.code, label).toBe(caller === member || discoverability === "visible" ? "FORBIDDEN" : "NOT_FOUND");
          for (const answer of answers) expect(answer, label).toEqual(answers[0]);
        }
      }
      // The managers learn whether the account exists (they need to).
      expect((await server.graphql(invite, { group: String(groupId), user: "nobody-like-this" }, owner.token)).errors[0]?.extensions?.code).toBe("NOT_FOUND");
    }
  });

  it("invitations find an email address regardless of case, as sign-in and sign-up do", async () => {
    const [owner, invitee] = await Promise.all([server.user(), server.user()]);
    const groupId = await groupWith("invite_only", owner);
    const invite = gql(`mutation($group: ID!, $user: String!) { inviteToGroup(group: $group, user: $user) { id } }`);
    const shouted = `${invitee.username}@example.test`.toUpperCase();
    const result = await server.graphql(invite, { group: String(groupId), user: shouted }, owner.token);
    expect(result.errors, JSON.stringify(result.errors)).toEqual([]);
    expect(await standingOf(groupId, invitee.id)).toBe("invitee");
  });

  it("inviting names an existing account by username or email; anything else is 404 naming user", async () => {
    const owner = await server.user();
    const [byEmail] = await Promise.all([server.user()]);
    const groupId = await groupWith("invite_only", owner);
    const email = gql(`mutation($group: ID!, $user: String!) { inviteToGroup(group: $group, user: $user) { id } }`);
    expect((await server.graphql(email, { group: String(groupId), user: `${byEmail.username}@example.test` }, owner.token)).errors).toEqual([]);
    expect(await standingOf(groupId, byEmail.id)).toBe("invitee");
    const missing = await server.graphql(email, { group: String(groupId), user: "nobody-like-this" }, owner.token);
    expect(missing.errors[0]?.extensions).toMatchObject({ code: "NOT_FOUND", errors: [{ parameter: "user" }] });
  });

  it("requests and invitations are told to managers and the person concerned only (outbox audience and subject)", async () => {
    const [owner, applicant] = await Promise.all([server.user(), server.user()]);
    const groupId = await groupWith("restricted", owner);
    expect((await run("join", groupId, applicant, applicant)).errors).toEqual([]);
    const events = await server.app.db.prisma.outboxEvent.findMany({ where: { area: "groups", recordId: groupId }, orderBy: { id: "asc" } });
    const requested = events.find((event) => event.type === "groups.joinRequested");
    expect(requested).toMatchObject({ audience: "managers", subjectId: applicant.id, scope: "group", scopeId: groupId });
  });

  it("tells a hidden group's invitee none of the events that say who is in it (joins, leaves, removals, promotions, demotions): they read the group, not its members list, until they accept", async () => {
    const [owner, invitee, member] = await Promise.all([server.user(), server.user(), server.user()]);
    const groupId = await groupWith("open", owner, "hidden");
    await place(groupId, invitee, "invitee");
    await place(groupId, member, "member");
    for (const transition of ["promote", "demote", "remove"] as const) expect((await run(transition, groupId, owner, member)).errors).toEqual([]);
    const stored = await server.app.db.prisma.outboxEvent.findMany({ where: { area: "groups", recordId: groupId }, orderBy: { id: "asc" } });
    const events = stored.map((event) => ({ ...event, id: String(event.id), xid: String(event.xid) }) as unknown as StoredEvent);
    const aboutMembers = events.filter((event) => event.area === "groups" && event.recordId === groupId && /member(Promoted|Demoted|Removed)$/.test(event.type));
    expect(aboutMembers.map((event) => event.type)).toEqual(["groups.memberPromoted", "groups.memberDemoted", "groups.memberRemoved"]);
    const viewerOf = (user: TestUser): Viewer => ({ user: { id: user.id, username: user.username, isAdmin: false }, via: "token" });
    const stranger = await server.user();
    const [toInvitee, toOwner, toStranger] = [invitee, owner, stranger].map(viewerOf) as [Viewer, Viewer, Viewer];
    const told = await readableBy(server.app.db.prisma, [toInvitee, toOwner, toStranger], aboutMembers);
    expect(told.get(viewerKey(toOwner))!.size).toBe(3);
    expect(told.get(viewerKey(toInvitee))!.size).toBe(0);
    expect(told.get(viewerKey(toStranger))!.size).toBe(0);
  });

  for (const [standing, caller, policy, transition, type, audience] of EVENTS) {
    it(`event: ${standing} · ${caller} · ${transition} → ${type} to ${audience}`, async () => {
      const [owner, subject] = await Promise.all([server.user(), server.user()]);
      const groupId = await groupWith(policy, owner);
      await place(groupId, subject, standing);
      const callers = { self: subject, manager: owner, admin } as Record<Caller, TestUser>;
      const result = await run(transition, groupId, callers[caller], subject);
      expect(result.errors, JSON.stringify(result.errors)).toEqual([]);
      const [event] = await server.app.db.prisma.outboxEvent.findMany({ where: { area: "groups", recordId: groupId }, orderBy: { id: "desc" }, take: 1 });
      expect(event).toMatchObject({ type, audience, subjectId: subject.id, actorId: callers[caller].id, scope: "group", scopeId: groupId });
    });
  }

  it("a member who leaves or is removed loses the group's private wiki and blog content on the next request", async () => {
    const [owner, leaver, removed] = await Promise.all([server.user(), server.user(), server.user()]);
    const groupId = await groupWith("open", owner);
    for (const user of [leaver, removed]) expect((await run("join", groupId, user, user)).errors).toEqual([]);
    const page = await server.rest("POST", "/wiki", { token: owner.token, body: { title: "Private plans", pagetext: "x", scope: "group", scope_id: groupId, state: 1, access: 4 } });
    const entry = await server.rest("POST", "/blog", { token: owner.token, body: { title: "Private post", content: "x", scope: "group", scope_id: groupId, state: 1, access: 5 } });
    expect([page.status, entry.status]).toEqual([201, 201]);
    for (const user of [leaver, removed]) {
      expect((await server.rest("GET", `/wiki/${page.body.id}`, { token: user.token })).status).toBe(200);
      expect((await server.rest("GET", `/blog/${entry.body.id}`, { token: user.token })).status).toBe(200);
    }
    expect((await run("leave", groupId, leaver, leaver)).errors).toEqual([]);
    expect((await run("remove", groupId, owner, removed)).errors).toEqual([]);
    for (const user of [leaver, removed]) {
      expect((await server.rest("GET", `/wiki/${page.body.id}`, { token: user.token })).status).toBe(404);
      expect((await server.rest("GET", `/blog/${entry.body.id}`, { token: user.token })).status).toBe(404);
    }
  });
});
