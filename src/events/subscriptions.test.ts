import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type Cast, type TestServer } from "../../test/server.js";
import { subscribeOverSse } from "../../test/sse.js";
import { hubOf } from "./subscriptions.js";

/**
 * GraphQL subscriptions over SSE (graphql-yoga at /graphql), through real HTTP: what a subscriber receives
 * is what they may read when the event commits.
 */
describe("subscriptions over SSE", () => {
  let server: TestServer;
  let cast: Cast;

  beforeAll(async () => {
    server = await startServer();
    cast = await server.cast("subscribers");
  });
  afterAll(() => server?.close());

  interface Received {
    type: string;
    recordId: number;
    actorId: number | null;
    id: string;
  }

  /** Opens a subscription on the server; collects its events until closed. */
  const subscribe = (query: string, variables: Record<string, unknown> = {}, token?: string) =>
    subscribeOverSse<Received>(server.url, hubOf(server.app.db.prisma), query, variables, token);

  const eventsQuery = `subscription($types: [String!], $scope: String, $scopeId: Int) { events(types: $types, scope: $scope, scopeId: $scopeId) { id type recordId actorId } }`;

  /** Waits until `done`, up to 5 s (delivery follows the commit by milliseconds, not within the request). */
  async function eventually(done: () => boolean) {
    for (let waited = 0; !done(); waited += 20) {
      if (waited > 5000) throw new Error("not received within 5 s");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  const settle = () => new Promise((resolve) => setTimeout(resolve, 300));
  const graphql = async (query: string, variables: Record<string, unknown>, token?: string) => {
    const response = await fetch(`${server.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify({ query, variables }),
    });
    return (await response.json()) as { data?: Record<string, unknown>; errors?: { message: string; extensions?: Record<string, unknown> }[] };
  };

  it("follows one record: wikiPageChanged(id) gets that page's updates and deletion, and refuses a page the caller may not read", async () => {
    const page = await server.rest("POST", "/wiki", { token: cast.alice.token, body: { title: "Followed page", pagetext: "One.", state: 1 } });
    const other = await server.rest("POST", "/wiki", { token: cast.alice.token, body: { title: "Unfollowed page", pagetext: "One.", state: 1 } });
    const follower = await subscribe(`subscription($id: Int!) { wikiPageChanged(id: $id) { id type recordId } }`, { id: page.body.id });
    try {
      await server.rest("PATCH", `/wiki/${other.body.id}`, { token: cast.alice.token, body: { pagetext: "Two." } });
      await server.rest("PATCH", `/wiki/${page.body.id}`, { token: cast.alice.token, body: { pagetext: "Two." } });
      expect((await server.rest("DELETE", `/wiki/${page.body.id}`, { token: cast.alice.token })).status).toBe(204);
      await eventually(() => follower.events.length >= 2);
      await settle();
      expect(follower.events.map((event) => [event.type, event.recordId])).toEqual([
        ["wiki.pageUpdated", page.body.id],
        ["wiki.pageDeleted", page.body.id],
      ]);
      expect(new Set(follower.events.map((event) => event.id)).size).toBe(2);
    } finally {
      await follower.close();
    }
    const draft = await server.rest("POST", "/wiki", { token: cast.alice.token, body: { title: "Alice's draft", pagetext: "One.", state: 0 } });
    const refused = await subscribe(`subscription($id: Int!) { wikiPageChanged(id: $id) { id } }`, { id: draft.body.id }, cast.bob.token);
    await eventually(() => refused.errors.length > 0);
    expect(JSON.stringify(refused.errors)).toContain(`Wiki page ${draft.body.id} not found`);
    await refused.close();
  });

  it("refuses an event type not in the catalogue, naming `types`", async () => {
    const bad = await subscribe(eventsQuery, { types: ["wiki.nothing"] });
    await eventually(() => bad.errors.length > 0);
    expect(JSON.stringify(bad.errors)).toContain("types");
    await bad.close();
  });

  it("shows a membership request only to the group's managers and the applicant", async () => {
    const groupCn = `subsrestricted${Date.now().toString(36)}`;
    const made = await server.rest("POST", "/groups", { token: cast.manager.token, body: { cn: groupCn, title: "Restricted", join_policy: "restricted", discoverability: "visible" } });
    expect(made.status).toBe(201);
    const query = `subscription { events(types: ["groups.joinRequested"]) { type recordId } }`;
    const [manager, applicant, bystander] = [await subscribe(query, {}, cast.manager.token), await subscribe(query, {}, cast.bob.token), await subscribe(query, {}, cast.alice.token)];
    try {
      const joined = await graphql(`mutation($group: ID!) { joinGroup(group: $group) { id } }`, { group: groupCn }, cast.bob.token);
      expect(joined.errors).toBeUndefined();
      await eventually(() => manager.events.length >= 1 && applicant.events.length >= 1);
      await settle();
      expect(bystander.events).toEqual([]);
      expect(manager.events[0]).toMatchObject({ type: "groups.joinRequested", recordId: made.body.gidNumber });
    } finally {
      await Promise.all([manager.close(), applicant.close(), bystander.close()]);
    }
  });

  it("delivers what each subscriber may read: public pages to everyone, a group's private page to its members only, and stops when a member leaves", async () => {
    const anonymous = await subscribe(eventsQuery, { types: ["wiki.pageCreated"] });
    const member = await subscribe(eventsQuery, { types: ["wiki.pageCreated"] }, cast.member.token);
    const outsider = await subscribe(eventsQuery, { types: ["wiki.pageCreated"] }, cast.bob.token);
    try {
      const open = await server.rest("POST", "/wiki", { token: cast.alice.token, body: { title: "Public news", pagetext: "Text.", state: 1 } });
      const closed = await server.rest("POST", "/wiki", { token: cast.member.token, body: { title: "Members only", pagetext: "Text.", state: 1, access: 4, scope: "group", scope_id: cast.groupId } });
      expect([open.status, closed.status]).toEqual([201, 201]);
      await eventually(() => member.events.length >= 2 && anonymous.events.length >= 1 && outsider.events.length >= 1);
      await settle();
      expect(member.events.map((event) => event.recordId)).toEqual([open.body.id, closed.body.id]);
      expect(anonymous.events.map((event) => event.recordId)).toEqual([open.body.id]);
      expect(outsider.events.map((event) => event.recordId)).toEqual([open.body.id]);
      expect(anonymous.events[0]).toMatchObject({ type: "wiki.pageCreated", actorId: cast.alice.id });

      // The member is removed by a manager: the group's next private page no longer reaches them; a public one does.
      const removed = await graphql(`mutation($group: ID!, $user: String!) { removeGroupMember(group: $group, user: $user) { id } }`, { group: String(cast.groupId), user: cast.member.username }, cast.manager.token);
      expect(removed.errors).toBeUndefined();
      const afterClosed = await server.rest("POST", "/wiki", { token: cast.manager.token, body: { title: "After the removal", pagetext: "Text.", state: 1, access: 4, scope: "group", scope_id: cast.groupId } });
      const afterOpen = await server.rest("POST", "/wiki", { token: cast.alice.token, body: { title: "Public again", pagetext: "Text.", state: 1 } });
      await eventually(() => member.events.length >= 3 && anonymous.events.length >= 2);
      await settle();
      expect(member.events.map((event) => event.recordId)).toEqual([open.body.id, closed.body.id, afterOpen.body.id]);
      expect(afterClosed.status).toBe(201);
    } finally {
      await Promise.all([anonymous.close(), member.close(), outsider.close()]);
    }
  });
});
