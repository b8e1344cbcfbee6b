// The calls the original system's public Python client (nanohub-remote, `nanohubremote/session.py`) makes,
// made the way it makes them (issue 32): a form-encoded password grant at developer/oauth/token, then
// `Authorization: Bearer` on every call, form-encoded bodies for writes (requests' `data=`), query
// parameters for reads (`params=`), a `Referer` header, and an answer holding `errors` taken as failure.
// Before issue 32 its group create (cn and title only) was 400 and every group-scoped call after it failed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, type TestUser } from "./server.js";

let server: TestServer;
let user: TestUser;
const calls: string[] = [];

beforeAll(async () => {
  server = await startServer();
  user = await server.user();
});
afterAll(async () => {
  // The closing note of issue 32 quotes these: each call as the client makes it, and its status.
  console.log(`original client's calls (${server?.kind}):\n  ${calls.join("\n  ")}`);
  await server?.close();
});

/** As `Session.requestPost` / `requestGet` / `requestDelete` send it. */
async function call(method: "GET" | "POST" | "DELETE", path: string, data: Record<string, string> = {}, token: string | null = user.token) {
  const url = new URL(`/api/${path}`, server.url);
  const headers: Record<string, string> = { referer: `${server.url}/api` };
  if (token) headers.authorization = `Bearer ${token}`;
  let body: string | undefined;
  if (method === "GET") for (const [name, value] of Object.entries(data)) url.searchParams.append(name, value);
  else {
    headers["content-type"] = "application/x-www-form-urlencoded";
    body = new URLSearchParams(data).toString();
  }
  const response = await fetch(url, { method, headers, body });
  const text = await response.text();
  const answer = text ? JSON.parse(text) : null;
  calls.push(`${method} /api/${path}${method === "GET" && url.search ? url.search : ""}${method !== "GET" ? ` ${body}` : ""} → ${response.status}`);
  return { status: response.status, headers: response.headers, body: answer };
}

describe("the original Python client's calls", () => {
  let cn: string;
  let gid: number;

  it("signs in with a form-encoded password grant", async () => {
    const token = await call("POST", "developer/oauth/token", { grant_type: "password", username: user.username, password: user.password }, null);
    expect(token.status).toBe(200);
    expect(token.body).not.toHaveProperty("errors");
    expect(token.body).toMatchObject({ access_token: expect.any(String), expires_in: 3600, token_type: "Bearer" });
  });

  it("creates a group with cn and title only: join_policy and discoverability take their documented defaults", async () => {
    cn = `remote${Date.now().toString(36)}`;
    const created = await call("POST", "groups", { cn, title: "Made by the original client" });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ cn, join_policy: "open", discoverability: "visible", created_by: user.id });
    gid = created.body.gidNumber;
  });

  it("writes a blog entry in that group (by the group's path and by scope/scope_id)", async () => {
    const byPath = await call("POST", `groups/${cn}/blog`, { title: "Group news", content: "Posted by the client." });
    expect(byPath.status, JSON.stringify(byPath.body)).toBe(201);
    expect(byPath.body).toMatchObject({ scope: "group", scope_id: gid, title: "Group news" });
    const byScope = await call("POST", "blog", { scope: "group", scope_id: String(gid), title: "More group news", content: "Also posted by the client.", state: "1" });
    expect(byScope.status, JSON.stringify(byScope.body)).toBe(201);
    const listed = await call("GET", `groups/${cn}/blog/list`, { limit: "10" });
    expect(listed.status).toBe(200);
    expect(listed.body.total).toBe(2);
  });

  it("starts forum threads without category_id: the scope's default category", async () => {
    const site = await call("POST", "forum", { title: "A site thread", comment: "Hello, forum." });
    expect(site.status, JSON.stringify(site.body)).toBe(201);
    expect(site.body).toMatchObject({ scope: "site", scope_id: 0, category_id: expect.any(Number) });
    expect(site.body.category_id).toBeGreaterThan(0);
    const inGroup = await call("POST", "forum", { scope: "group", scope_id: String(gid), title: "A group thread", comment: "Hello, group." });
    expect(inGroup.status, JSON.stringify(inGroup.body)).toBe(201);
    expect(inGroup.body).toMatchObject({ scope: "group", scope_id: gid });
    expect(inGroup.body.category_id).not.toBe(site.body.category_id);
  });

  it("writes an activity entry in the group, and lists the group's activity with query parameters", async () => {
    const entry = await call("POST", "activity", { scope: "group", scope_id: String(gid), action: "shared", description: "Shared a notebook." });
    expect(entry.status, JSON.stringify(entry.body)).toBe(201);
    expect(entry.body).toMatchObject({ scope: "group", scope_id: gid, action: "shared" });
    const listed = await call("GET", "activity/list", { scope: "group", scope_id: String(gid), limit: "5" });
    expect(listed.status).toBe(200);
    expect(listed.body.map((item: { id: number }) => item.id)).toContain(entry.body.id);
  });

  it("lists groups with query parameters; extras it sends are listed in X-Ignored-Parameters, never an error", async () => {
    const listed = await call("GET", "groups/list", { search: cn, format: "json" });
    expect(listed.status).toBe(200);
    expect(listed.body.map((group: { gidNumber: number }) => group.gidNumber)).toEqual([gid]);
    expect(listed.headers.get("x-ignored-parameters")).toBe("format");
  });

  it("is told 401 for a write without its token, before anything about the body", async () => {
    const anonymous = await call("POST", "groups", { cn: "Not A Valid cn!" }, null);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).not.toHaveProperty("errors");
  });

  it("deletes the group it made (a form body on DELETE, as requests sends data=)", async () => {
    const deleted = await call("DELETE", `groups/${gid}`, {});
    expect(deleted.status).toBe(204);
  });
});
