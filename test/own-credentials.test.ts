import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashSecret } from "../src/auth/secrets.js";
import { startServer, type RestResult, type TestServer, type TestUser } from "./server.js";

/**
 * A signed-in user's own cookie sessions and OAuth2 tokens (docs/decisions.md, Authentication): listed
 * without secrets, revoked one by one or all but the current; never another user's.
 */
let server: TestServer;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  server = await startServer();
  [alice, bob] = await Promise.all([server.user(), server.user()]);
});

afterAll(() => server?.close());

interface Browser {
  cookie: string;
  csrf: string;
}

async function signInBrowser(user: TestUser): Promise<Browser> {
  const login = await server.rest("POST", "/session", { body: { username: user.username, password: user.password } });
  expect(login.status).toBe(201);
  return { cookie: login.headers.get("set-cookie")!.split(";")[0]!, csrf: login.body.csrfToken };
}

async function signInApp(user: TestUser): Promise<{ access_token: string; refresh_token: string }> {
  const result = await server.rest("POST", "/developer/oauth/token", { form: { grant_type: "password", username: user.username, password: user.password } });
  expect(result.status).toBe(200);
  return result.body;
}

/** A request as a browser: the cookie, and the CSRF token on unsafe methods. */
const asBrowser = (browser: Browser, method: string, path: string) =>
  server.rest(method, path, { headers: { cookie: browser.cookie, ...(method === "GET" ? {} : { "x-csrf-token": browser.csrf }) } });
const sessionWorks = async (browser: Browser) => (await asBrowser(browser, "GET", "/session")).status === 200;
const tokenWorks = async (token: string) => (await server.rest("GET", "/members/me", { token })).status === 200;
const tokenRowOf = async (accessToken: string) => (await server.app.db.prisma.oAuthToken.findUniqueOrThrow({ where: { accessTokenHash: hashSecret(accessToken) } })).id;

async function graphql(query: string, token?: string) {
  const response = await fetch(`${server.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query }),
  });
  return (await response.json()) as { data: Record<string, any> | null; errors?: { extensions?: { code?: string } }[] };
}

/** No secret, and nothing that could be one, in an answer: no value the server stores as a hash, nor the hash. */
function expectNoSecrets(result: RestResult, secrets: string[]) {
  const text = JSON.stringify(result.body);
  for (const secret of secrets) {
    expect(text).not.toContain(secret);
    expect(text).not.toContain(hashSecret(secret));
  }
}

describe("own cookie sessions: GET /api/session/list, DELETE /api/session/{id}, DELETE /api/session/others", () => {
  it("lists the caller's live sessions with the current one marked, and no cookie, hash or CSRF token", async () => {
    const user = await server.user();
    const [first, second] = [await signInBrowser(user), await signInBrowser(user)];
    await signInBrowser(bob);
    const listed = await asBrowser(first, "GET", "/session/list");
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect(listed.body.total).toBe(2);
    expect(listed.body.sessions.map((session: Record<string, unknown>) => Object.keys(session).sort())).toEqual([
      ["created", "current", "expires", "id"],
      ["created", "current", "expires", "id"],
    ]);
    expect(listed.body.sessions.filter((session: { current: boolean }) => session.current)).toHaveLength(1);
    expectNoSecrets(listed, [first.cookie.split("=")[1]!, second.cookie.split("=")[1]!, first.csrf, second.csrf]);
    // Through a bearer token none is current.
    const viaToken = await server.rest("GET", "/session/list", { token: user.token });
    expect(viaToken.body.sessions.map((session: { current: boolean }) => session.current)).toEqual([false, false]);
  });

  it("ends one session: its cookie no longer works, the others do; another user's session is 404", async () => {
    const [kept, ended] = [await signInBrowser(alice), await signInBrowser(alice)];
    const listed = await asBrowser(ended, "GET", "/session/list");
    const endedId = listed.body.sessions.find((session: { current: boolean }) => session.current).id;
    const bobs = await signInBrowser(bob);
    expect((await asBrowser(bobs, "DELETE", `/session/${endedId}`)).status).toBe(404);
    expect((await server.rest("DELETE", `/session/${endedId}`, { token: bob.token })).status).toBe(404);
    expect(await sessionWorks(ended)).toBe(true);
    const revoked = await asBrowser(kept, "DELETE", `/session/${endedId}`);
    expect(revoked.status).toBe(204);
    expect(await sessionWorks(ended)).toBe(false);
    expect(await sessionWorks(kept)).toBe(true);
    expect((await asBrowser(kept, "DELETE", `/session/${endedId}`)).status).toBe(404);
    expect((await asBrowser(kept, "DELETE", "/session/abc")).body.errors[0].parameter).toBe("id");
  });

  it("ends every other session but keeps the current one; from a bearer token, all of them", async () => {
    const user = await server.user();
    const [current, other, third] = [await signInBrowser(user), await signInBrowser(user), await signInBrowser(user)];
    const bobs = await signInBrowser(bob);
    expect((await asBrowser(current, "DELETE", "/session/others")).status).toBe(204);
    expect([await sessionWorks(current), await sessionWorks(other), await sessionWorks(third), await sessionWorks(bobs)]).toEqual([true, false, false, true]);
    expect((await server.rest("DELETE", "/session/others", { token: user.token })).status).toBe(204);
    expect(await sessionWorks(current)).toBe(false);
    expect(await sessionWorks(bobs)).toBe(true);
  });

  it("needs a signed-in caller, and the CSRF token with a cookie", async () => {
    expect((await server.rest("GET", "/session/list")).status).toBe(401);
    expect((await server.rest("DELETE", "/session/others")).status).toBe(401);
    const browser = await signInBrowser(alice);
    expect((await server.rest("DELETE", "/session/others", { headers: { cookie: browser.cookie } })).status).toBe(403);
  });
});

describe("own OAuth2 tokens: GET /api/developer/tokens, DELETE /api/developer/tokens/{id}, DELETE /api/developer/tokens/others", () => {
  it("lists one entry per live sign-in, the current one marked, without tokens or hashes; spent refresh tokens are not listed", async () => {
    const user = await server.user();
    const first = await signInApp(user);
    const refreshed = (await server.rest("POST", "/developer/oauth/token", { form: { grant_type: "refresh_token", refresh_token: first.refresh_token } })).body;
    const second = await signInApp(user);
    const listed = await server.rest("GET", "/developer/tokens", { token: second.access_token });
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    // user.token (the harness's sign-in), the refreshed pair, and the second sign-in.
    expect(listed.body.total).toBe(3);
    const ids = listed.body.tokens.map((token: { id: number }) => token.id).sort();
    expect(ids).toEqual([await tokenRowOf(user.token), await tokenRowOf(refreshed.access_token), await tokenRowOf(second.access_token)].sort());
    const current = listed.body.tokens.filter((token: { current: boolean }) => token.current);
    expect(current.map((token: { id: number }) => token.id)).toEqual([await tokenRowOf(second.access_token)]);
    expect(current[0]).toMatchObject({ client_id: "hubgraph", client_name: expect.any(String), scope: "api" });
    expect(Object.keys(current[0]).sort()).toEqual(["access_token_expires", "client_id", "client_name", "created", "current", "id", "refresh_token_expires", "scope"]);
    expectNoSecrets(listed, [user.token, first.access_token, first.refresh_token, refreshed.access_token, refreshed.refresh_token, second.access_token, second.refresh_token]);
  });

  it("revokes one token with its sign-in: it and its refresh token stop working; another user's token is 404", async () => {
    const user = await server.user();
    const app = await signInApp(user);
    const id = await tokenRowOf(app.access_token);
    expect((await server.rest("DELETE", `/developer/tokens/${id}`, { token: bob.token })).status).toBe(404);
    expect(await tokenWorks(app.access_token)).toBe(true);
    expect((await server.rest("DELETE", `/developer/tokens/${id}`, { token: user.token })).status).toBe(204);
    expect(await tokenWorks(app.access_token)).toBe(false);
    const refreshed = await server.rest("POST", "/developer/oauth/token", { form: { grant_type: "refresh_token", refresh_token: app.refresh_token } });
    expect(refreshed.body.error).toBe("invalid_grant");
    expect(await tokenWorks(user.token)).toBe(true);
    expect((await server.rest("DELETE", `/developer/tokens/${id}`, { token: user.token })).status).toBe(404);
  });

  it("revokes every other token but keeps the current sign-in; from a cookie session, all of them", async () => {
    const user = await server.user();
    const [other, current] = [await signInApp(user), await signInApp(user)];
    expect((await server.rest("DELETE", "/developer/tokens/others", { token: current.access_token })).status).toBe(204);
    expect([await tokenWorks(user.token), await tokenWorks(other.access_token), await tokenWorks(current.access_token), await tokenWorks(bob.token)]).toEqual([false, false, true, true]);
    expect((await server.rest("POST", "/developer/oauth/token", { form: { grant_type: "refresh_token", refresh_token: current.refresh_token } })).status).toBe(200);
    const browser = await signInBrowser(user);
    expect((await asBrowser(browser, "DELETE", "/developer/tokens/others")).status).toBe(204);
    expect((await server.rest("GET", "/developer/tokens", { headers: { cookie: browser.cookie } })).body.total).toBe(0);
  });
});

describe("own sessions and tokens through GraphQL", () => {
  it("lists and revokes the caller's own, refuses anonymous callers, and does not find another user's", async () => {
    const user = await server.user();
    const app = await signInApp(user);
    const listed = await graphql("{ myTokens { items { id clientId current } total } mySessions { items { id } total } }", app.access_token);
    expect(listed.errors).toBeUndefined();
    expect(listed.data!.myTokens.total).toBe(2);
    expect(listed.data!.mySessions.total).toBe(0);
    const currentId = listed.data!.myTokens.items.find((token: { current: boolean }) => token.current).id;
    const foreign = await graphql(`mutation { revokeToken(id: "${currentId}") }`, bob.token);
    expect(foreign.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    const others = await graphql("mutation { revokeOtherTokens }", app.access_token);
    expect(others.data).toEqual({ revokeOtherTokens: 1 });
    expect(await tokenWorks(user.token)).toBe(false);
    expect((await graphql(`mutation { revokeToken(id: "${currentId}") }`, app.access_token)).data).toEqual({ revokeToken: currentId });
    expect(await tokenWorks(app.access_token)).toBe(false);
    for (const query of ["{ myTokens { total } }", "{ mySessions { total } }", "mutation { revokeOtherSessions }", 'mutation { revokeSession(id: "1") }']) {
      expect((await graphql(query)).errors?.[0]?.extensions?.code, query).toBe("UNAUTHENTICATED");
    }
  });
});
