import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { print } from "graphql";
import { startServer, type RestResult, type TestServer, type TestUser } from "./server.js";
import { TestCreateUserDocument, TestMeDocument, TestRegisterClientDocument } from "./generated/auth.js";
import { hashSecret } from "../src/auth/secrets.js";
import { ensureAdministrator } from "../src/users/service.js";

const TOKEN = "/developer/oauth/token";
const ME_QUERY = print(TestMeDocument);

let server: TestServer;
/** The accounts the default server held before any test created one. */
let usersAtStart: { username: string; isAdmin: boolean }[];

beforeAll(async () => {
  server = await startServer();
  usersAtStart = await server.app.db.prisma.user.findMany({ select: { username: true, isAdmin: true } });
});

afterAll(async () => {
  await server?.close();
});

/** The contract's error body: a sentence, the status code, and (for input errors) the parameters. */
function expectError(result: RestResult, status: number): void {
  expect(result.status).toBe(status);
  expect(typeof result.body?.message).toBe("string");
  expect(result.body.message.length).toBeGreaterThan(0);
  expect(result.body.code).toBe(status);
  if (status === 401) expect(result.headers.get("www-authenticate")).toMatch(/^Bearer\b/);
}

/** RFC 6749 §5.2 error body, with the contract's `message` and `code` as well. */
function expectOAuthError(result: RestResult, status: number, error: string): void {
  expect(result.status).toBe(status);
  expect(result.body).toMatchObject({ error, code: status });
  expect(typeof result.body.error_description).toBe("string");
  expect(typeof result.body.message).toBe("string");
  expect(result.headers.get("cache-control")).toContain("no-store");
}

function expectTokenResponse(result: RestResult, { refresh = true } = {}): void {
  expect(result.status, JSON.stringify(result.body)).toBe(200);
  expect(result.headers.get("cache-control")).toContain("no-store");
  expect(result.headers.get("content-type")).toMatch(/^application\/json/);
  expect(result.body).toMatchObject({ token_type: "Bearer", expires_in: 3600 });
  expect(typeof result.body.access_token).toBe("string");
  expect(result.body.access_token.length).toBeGreaterThanOrEqual(32);
  expect(typeof result.body.scope).toBe("string");
  if (refresh) {
    expect(typeof result.body.refresh_token).toBe("string");
    expect(result.body.refresh_token).not.toBe(result.body.access_token);
  }
}

const passwordGrant = (user: { username: string; password: string }) =>
  server.rest("POST", TOKEN, { form: { grant_type: "password", username: user.username, password: user.password } });

/** Moves a spent refresh token's rotation a minute back, past REFRESH_TOKEN_GRACE (as if time had passed). */
async function pastGrace(refreshToken: string): Promise<void> {
  await server.app.db.prisma.oAuthToken.updateMany({ where: { refreshTokenHash: hashSecret(refreshToken) }, data: { rotatedAt: new Date(Date.now() - 60_000) } });
}

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`;

/** Raw request with a cookie (and optional extra headers), outside the harness's bearer-only helper. */
async function withCookie(cookie: string, method: string, path: string, init: { headers?: Record<string, string>; body?: string } = {}) {
  const response = await fetch(`${server.url}${path}`, { method, headers: { cookie, ...init.headers }, body: init.body });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null } as RestResult;
}

describe("token endpoint: password grant", () => {
  let user: TestUser;
  beforeAll(async () => {
    user = await server.user();
  });

  it("accepts a form body with the username", async () => {
    const result = await passwordGrant(user);
    expectTokenResponse(result);
  });

  it("accepts a form body with the e-mail address", async () => {
    const result = await server.rest("POST", TOKEN, {
      form: { grant_type: "password", username: `${user.username}@example.test`, password: user.password },
    });
    expectTokenResponse(result);
  });

  it("accepts a JSON body with the username", async () => {
    const result = await server.rest("POST", TOKEN, { body: { grant_type: "password", username: user.username, password: user.password } });
    expectTokenResponse(result);
  });

  it("accepts a JSON body with the e-mail address (any case)", async () => {
    const result = await server.rest("POST", TOKEN, {
      body: { grant_type: "password", username: `${user.username}@EXAMPLE.test`, password: user.password },
    });
    expectTokenResponse(result);
  });

  it("treats the login name literally: % and _ in it match no account", async () => {
    for (const login of ["%", "%@%", "_%", `${user.username.slice(0, -1)}_`]) {
      const result = await server.rest("POST", TOKEN, { form: { grant_type: "password", username: login, password: user.password } });
      expect(result.status, login).toBe(400);
      expect(result.body.error).toBe("invalid_grant");
    }
    const session = await server.rest("POST", "/session", { body: { username: "%", password: user.password } });
    expect(session.status).toBe(401);
  });

  it("issues a token that identifies the user", async () => {
    const token = (await passwordGrant(user)).body.access_token as string;
    const me = await server.rest("GET", "/members/me", { token });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: user.id, username: user.username });
  });

  it("refuses a wrong password with invalid_grant", async () => {
    const result = await server.rest("POST", TOKEN, { form: { grant_type: "password", username: user.username, password: "not-the-password" } });
    expectOAuthError(result, 400, "invalid_grant");
    expect(result.body.access_token).toBeUndefined();
  });

  it("refuses an unknown user with invalid_grant", async () => {
    const result = await server.rest("POST", TOKEN, { body: { grant_type: "password", username: "nobody-here", password: "whatever-password" } });
    expectOAuthError(result, 400, "invalid_grant");
  });

  it("refuses a missing grant_type with invalid_request", async () => {
    const result = await server.rest("POST", TOKEN, { form: { username: user.username, password: user.password } });
    expectOAuthError(result, 400, "invalid_request");
  });

  it("refuses a missing password with invalid_request", async () => {
    const result = await server.rest("POST", TOKEN, { form: { grant_type: "password", username: user.username } });
    expectOAuthError(result, 400, "invalid_request");
  });

  it("refuses an unknown grant type with unsupported_grant_type", async () => {
    for (const grant_type of ["urn:example:made-up", "authorization_code", "implicit"]) {
      const result = await server.rest("POST", TOKEN, { form: { grant_type, username: user.username, password: user.password } });
      expectOAuthError(result, 400, "unsupported_grant_type");
    }
  });

  it("never answers 500 to odd JSON bodies", async () => {
    const bodies: Record<string, unknown>[] = [
      { grant_type: 5 },
      { grant_type: ["password"] },
      { grant_type: "password", username: { $ne: "" }, password: "x" },
      { grant_type: "password", username: user.username, password: 12345678 },
      { grant_type: "refresh_token", refresh_token: { a: 1 } },
      { grant_type: "client_credentials", client_id: 7, client_secret: [1] },
    ];
    for (const body of bodies) {
      const result = await server.rest("POST", TOKEN, { body });
      expect(result.status, JSON.stringify({ body, result: result.body })).toBeGreaterThanOrEqual(400);
      expect(result.status, JSON.stringify({ body, result: result.body })).toBeLessThan(500);
      expect(typeof result.body.error).toBe("string");
      expect(result.body.access_token).toBeUndefined();
    }
  });

  it("grants the api scope, asked or not, and refuses any other scope with invalid_scope", async () => {
    const credentials = { grant_type: "password", username: user.username, password: user.password };
    for (const form of [credentials, { ...credentials, scope: "api" }]) {
      const result = await server.rest("POST", TOKEN, { form });
      expectTokenResponse(result);
      expect(result.body.scope).toBe("api");
      const row = await server.app.db.prisma.oAuthToken.findUniqueOrThrow({ where: { accessTokenHash: hashSecret(result.body.access_token) } });
      expect(row.scope).toBe("api");
    }
    const before = await server.app.db.prisma.oAuthToken.count();
    for (const scope of ["superadmin", "api superadmin"]) {
      const result = await server.rest("POST", TOKEN, { form: { ...credentials, scope } });
      expectOAuthError(result, 400, "invalid_scope");
      expect(result.body.access_token).toBeUndefined();
    }
    expect(await server.app.db.prisma.oAuthToken.count()).toBe(before);
  });

  it("answers 405 with Allow: POST to another method", async () => {
    for (const method of ["GET", "PUT", "DELETE"]) {
      const result = await server.rest(method, TOKEN);
      expectError(result, 405);
      expect(result.headers.get("allow")).toBe("POST");
      expect(result.headers.get("x-api-version")).toBeTruthy();
    }
  });
});

describe("token endpoint: refresh_token grant", () => {
  it("rotates: the new refresh token works, the old refresh and access tokens stop working", async () => {
    const user = await server.user();
    const first = await passwordGrant(user);
    expectTokenResponse(first);

    const second = await server.rest("POST", TOKEN, { form: { grant_type: "refresh_token", refresh_token: first.body.refresh_token } });
    expectTokenResponse(second);
    expect(second.body.access_token).not.toBe(first.body.access_token);
    expect(second.body.refresh_token).not.toBe(first.body.refresh_token);

    // The new pair works.
    const me = await server.rest("GET", "/members/me", { token: second.body.access_token });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(user.id);

    // The old access token is revoked with its spent refresh token.
    expectError(await server.rest("GET", "/members/me", { token: first.body.access_token }), 401);

    // The new refresh token can itself be exchanged (JSON body this time).
    const third = await server.rest("POST", TOKEN, { body: { grant_type: "refresh_token", refresh_token: second.body.refresh_token } });
    expectTokenResponse(third);
    expect((await server.rest("GET", "/members/me", { token: third.body.access_token })).body.id).toBe(user.id);

    // After the grace period the spent refresh token is refused (and, being a replay, takes the family with it: see the next test).
    await pastGrace(first.body.refresh_token);
    const replay = await server.rest("POST", TOKEN, { body: { grant_type: "refresh_token", refresh_token: first.body.refresh_token } });
    expectOAuthError(replay, 400, "invalid_grant");
  });

  it("replaying a rotated refresh token revokes its whole family, and only that family", async () => {
    const user = await server.user();
    const first = await passwordGrant(user);
    const otherSignIn = await passwordGrant(user);
    const second = await server.rest("POST", TOKEN, { form: { grant_type: "refresh_token", refresh_token: first.body.refresh_token } });
    expectTokenResponse(second);
    expect((await server.rest("GET", "/members/me", { token: second.body.access_token })).status).toBe(200);

    // Someone replays the spent token after the grace period: refused, and every token descended from the same sign-in dies with it.
    await pastGrace(first.body.refresh_token);
    const replay = await server.rest("POST", TOKEN, { form: { grant_type: "refresh_token", refresh_token: first.body.refresh_token } });
    expectOAuthError(replay, 400, "invalid_grant");
    expectError(await server.rest("GET", "/members/me", { token: second.body.access_token }), 401);
    expectOAuthError(await server.rest("POST", TOKEN, { form: { grant_type: "refresh_token", refresh_token: second.body.refresh_token } }), 400, "invalid_grant");

    // The user's other sign-in is another family and keeps working.
    expect((await server.rest("GET", "/members/me", { token: otherSignIn.body.access_token })).status).toBe(200);
    expectTokenResponse(await server.rest("POST", TOKEN, { form: { grant_type: "refresh_token", refresh_token: otherSignIn.body.refresh_token } }));
  });

  it("concurrent exchanges of one refresh token all get the same new pair; after the grace period it is a replay that revokes it", async () => {
    const user = await server.user();
    const issued = await passwordGrant(user);
    const exchange = () => server.rest("POST", TOKEN, { form: { grant_type: "refresh_token", refresh_token: issued.body.refresh_token } });
    // One exchange rotates the token; the others, within REFRESH_TOKEN_GRACE, get what it got.
    const results = await Promise.all([exchange(), exchange(), exchange()]);
    for (const result of results) expectTokenResponse(result);
    expect(new Set(results.map((result) => result.body.access_token)).size).toBe(1);
    expect(new Set(results.map((result) => result.body.refresh_token)).size).toBe(1);
    const [pair] = results;
    expect((await server.rest("GET", "/members/me", { token: pair!.body.access_token })).status).toBe(200);
    // A retry a moment later still gets it.
    expect((await exchange()).body.refresh_token).toBe(pair!.body.refresh_token);
    // Another client presenting it gets nothing.
    expectOAuthError(await server.rest("POST", TOKEN, { form: { grant_type: "refresh_token", refresh_token: issued.body.refresh_token, client_id: "someone-else" } }), 401, "invalid_client");

    await pastGrace(issued.body.refresh_token);
    expectOAuthError(await exchange(), 400, "invalid_grant");
    expectError(await server.rest("GET", "/members/me", { token: pair!.body.access_token }), 401);
  });

  it("keeps the grace pair sealed: the database row holds no token in clear text", async () => {
    const user = await server.user();
    const issued = await passwordGrant(user);
    const next = await server.rest("POST", TOKEN, { form: { grant_type: "refresh_token", refresh_token: issued.body.refresh_token } });
    expectTokenResponse(next);
    const row = await server.app.db.prisma.oAuthToken.findUniqueOrThrow({ where: { refreshTokenHash: hashSecret(issued.body.refresh_token) } });
    expect(row.graceSealed).toBeTruthy();
    for (const secret of [next.body.access_token, next.body.refresh_token]) expect(JSON.stringify(row)).not.toContain(secret);
  });

  it("refuses an unknown refresh token and a missing one", async () => {
    expectOAuthError(await server.rest("POST", TOKEN, { form: { grant_type: "refresh_token", refresh_token: "garbage" } }), 400, "invalid_grant");
    expectOAuthError(await server.rest("POST", TOKEN, { form: { grant_type: "refresh_token" } }), 400, "invalid_request");
  });

  it("refuses an expired refresh token with invalid_grant", async () => {
    const user = await server.user();
    const issued = await passwordGrant(user);
    expectTokenResponse(issued);
    const { count } = await server.app.db.prisma.oAuthToken.updateMany({
      where: { refreshTokenHash: hashSecret(issued.body.refresh_token) },
      data: { refreshTokenExpiresAt: new Date(Date.now() - 60_000) },
    });
    expect(count).toBe(1);
    const result = await server.rest("POST", TOKEN, { form: { grant_type: "refresh_token", refresh_token: issued.body.refresh_token } });
    expectOAuthError(result, 400, "invalid_grant");
    expect(result.body.access_token).toBeUndefined();
  });
});

describe("token endpoint: client_credentials grant", () => {
  let owner: TestUser;
  let clientId: string;
  let clientSecret: string;

  beforeAll(async () => {
    owner = await server.user();
    const registered = await server.graphql(TestRegisterClientDocument, { name: "CI robot" }, owner.token);
    expect(registered.errors).toEqual([]);
    clientId = registered.data!.registerOAuthClient.clientId;
    clientSecret = registered.data!.registerOAuthClient.clientSecret;
    expect(registered.data!.registerOAuthClient.name).toBe("CI robot");
    expect(registered.data!.registerOAuthClient.grants).toContain("client_credentials");
  });

  it("needs a signed-in user to register a client", async () => {
    const anonymous = await server.graphql(TestRegisterClientDocument, { name: "sneaky" });
    expect(anonymous.data).toBeNull();
    expect(anonymous.errors[0]?.extensions?.code).toBe("UNAUTHENTICATED");
  });

  it("refuses an empty or over-long client name with BAD_REQUEST naming name, and stores nothing", async () => {
    const before = await server.app.db.prisma.oAuthClient.count();
    for (const name of ["", "   ", "x".repeat(101)]) {
      const result = await server.graphql(TestRegisterClientDocument, { name }, owner.token);
      expect(result.data, JSON.stringify(name)).toBeNull();
      expect(result.errors[0]?.extensions?.code).toBe("BAD_REQUEST");
      expect(result.errors[0]?.extensions?.errors?.map((problem) => problem.parameter)).toEqual(["name"]);
      expect(result.errors[0]?.message).toContain("name");
    }
    expect(await server.app.db.prisma.oAuthClient.count()).toBe(before);
    const longest = await server.graphql(TestRegisterClientDocument, { name: ` ${"x".repeat(100)} ` }, owner.token);
    expect(longest.errors).toEqual([]);
    expect(longest.data!.registerOAuthClient.name).toBe("x".repeat(100));
  });

  it("stores the client secret hashed", async () => {
    const row = await server.app.db.prisma.oAuthClient.findUniqueOrThrow({ where: { id: clientId } });
    expect(Object.values(row).map(String).join(" ")).not.toContain(clientSecret);
    expect(row.ownerId).toBe(owner.id);
  });

  it("issues a token for client_id/client_secret in the body that acts as the owner", async () => {
    const result = await server.rest("POST", TOKEN, { form: { grant_type: "client_credentials", client_id: clientId, client_secret: clientSecret } });
    expectTokenResponse(result, { refresh: false });
    // RFC 6749 §4.4.3: no refresh token for client credentials.
    expect(result.body.refresh_token).toBeUndefined();
    const me = await server.rest("GET", "/members/me", { token: result.body.access_token });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: owner.id, username: owner.username });
  });

  it("issues a token for HTTP Basic client authentication", async () => {
    const result = await server.rest("POST", TOKEN, {
      form: { grant_type: "client_credentials" },
      headers: { authorization: basic(clientId, clientSecret) },
    });
    expectTokenResponse(result, { refresh: false });
    const me = await server.rest("GET", "/members/me", { token: result.body.access_token });
    expect(me.body.id).toBe(owner.id);
  });

  it("refuses a wrong secret with 401 invalid_client (body and Basic)", async () => {
    const inBody = await server.rest("POST", TOKEN, { body: { grant_type: "client_credentials", client_id: clientId, client_secret: "wrong" } });
    expectOAuthError(inBody, 401, "invalid_client");
    const inBasic = await server.rest("POST", TOKEN, { form: { grant_type: "client_credentials" }, headers: { authorization: basic(clientId, "wrong") } });
    expectOAuthError(inBasic, 401, "invalid_client");
    expect(inBasic.headers.get("www-authenticate")).toMatch(/^Basic\b/);
  });

  it("refuses an unknown client with 401 invalid_client", async () => {
    const result = await server.rest("POST", TOKEN, { form: { grant_type: "client_credentials", client_id: "client_nope", client_secret: "x" } });
    expectOAuthError(result, 401, "invalid_client");
  });

  it("a confidential client must authenticate for the password grant too", async () => {
    const result = await server.rest("POST", TOKEN, {
      form: { grant_type: "password", client_id: clientId, username: owner.username, password: owner.password },
    });
    expectOAuthError(result, 401, "invalid_client");
    expect(result.body.access_token).toBeUndefined();
    const authenticated = await server.rest("POST", TOKEN, {
      form: { grant_type: "password", client_id: clientId, client_secret: clientSecret, username: owner.username, password: owner.password },
    });
    expectTokenResponse(authenticated);
  });

  it("the public first-party client cannot use client_credentials", async () => {
    // Without client_id the public client is meant, and it has no secret to authenticate with.
    const implicit = await server.rest("POST", TOKEN, { form: { grant_type: "client_credentials" } });
    expectOAuthError(implicit, 401, "invalid_client");
    expect(implicit.body.access_token).toBeUndefined();

    // Naming it (with any secret) does not help: the grant is not one of its grants.
    const named = await server.rest("POST", TOKEN, { form: { grant_type: "client_credentials", client_id: "hubgraph", client_secret: "anything" } });
    expectOAuthError(named, 400, "unauthorized_client");
    expect(named.body.access_token).toBeUndefined();
  });
});

describe("bearer tokens", () => {
  it("are stored hashed: no oauth_tokens column holds the raw access or refresh token", async () => {
    const user = await server.user();
    const issued = await passwordGrant(user);
    expectTokenResponse(issued);
    const rows = await server.app.db.prisma.oAuthToken.findMany();
    expect(rows.length).toBeGreaterThan(0);
    const stored = rows.flatMap((row) => Object.values(row).map((value) => (value instanceof Date ? value.toISOString() : String(value))));
    for (const secret of [issued.body.access_token as string, issued.body.refresh_token as string, user.token]) {
      expect(stored.some((value) => value.includes(secret))).toBe(false);
    }
    // …but the token's row is there, under its hash.
    expect(rows.some((row) => row.accessTokenHash === hashSecret(issued.body.access_token))).toBe(true);
  });

  it("an expired token is refused with 401 and WWW-Authenticate", async () => {
    const user = await server.user();
    expect((await server.rest("GET", "/members/me", { token: user.token })).status).toBe(200);
    const { count } = await server.app.db.prisma.oAuthToken.updateMany({
      where: { accessTokenHash: hashSecret(user.token) },
      data: { accessTokenExpiresAt: new Date(Date.now() - 60_000) },
    });
    expect(count).toBe(1);
    expectError(await server.rest("GET", "/members/me", { token: user.token }), 401);
    expectError(await server.rest("GET", "/wiki/list", { token: user.token }), 401);
  });

  it("a garbage token is refused with 401 and WWW-Authenticate on REST and GraphQL", async () => {
    expectError(await server.rest("GET", "/members/me", { token: "garbage" }), 401);
    const response = await fetch(`${server.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer garbage" },
      body: JSON.stringify({ query: ME_QUERY }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toMatch(/^Bearer\b/);
    const body = (await response.json()) as { message?: unknown; code?: unknown };
    expect(body.code).toBe(401);
    expect(typeof body.message).toBe("string");
  });

  it("the same bearer identity reaches GraphQL", async () => {
    const user = await server.user();
    const rest = await server.rest("GET", "/members/me", { token: user.token });
    const graphql = await server.graphql(TestMeDocument, {}, user.token);
    expect(graphql.errors).toEqual([]);
    expect(graphql.data!.me.id).toBe(String(rest.body.id));
    expect(graphql.data!.me).toMatchObject({ username: user.username, email: `${user.username}@example.test`, admin: false });
  });

  it("GraphQL me without credentials is UNAUTHENTICATED", async () => {
    const result = await server.graphql(TestMeDocument, {});
    expect(result.data).toBeNull();
    expect(result.errors[0]?.extensions?.code).toBe("UNAUTHENTICATED");
  });
});

describe("cookie sessions", () => {
  let user: TestUser;
  beforeAll(async () => {
    user = await server.user();
  });

  async function login(kind: "json" | "form") {
    const body = { username: user.username, password: user.password };
    const result = kind === "json" ? await server.rest("POST", "/session", { body }) : await server.rest("POST", "/session", { form: body });
    expect(result.status, JSON.stringify(result.body)).toBe(201);
    const setCookie = result.headers.getSetCookie().find((line) => line.startsWith("hubgraph_session="));
    expect(setCookie).toBeDefined();
    return { result, setCookie: setCookie!, cookie: setCookie!.split(";")[0]! };
  }

  it("POST /api/session (JSON) answers 201 {user, csrfToken} and sets an HttpOnly SameSite=Lax cookie", async () => {
    const { result, setCookie, cookie } = await login("json");
    expect(result.body.user).toMatchObject({ id: user.id, username: user.username });
    expect(Object.keys(result.body.user).some((key) => /password/i.test(key))).toBe(false);
    expect(typeof result.body.csrfToken).toBe("string");
    expect(result.body.csrfToken.length).toBeGreaterThanOrEqual(32);
    expect(setCookie).toMatch(/;\s*HttpOnly/i);
    expect(setCookie).toMatch(/;\s*SameSite=Lax/i);
    expect(setCookie).toMatch(/;\s*Path=\//i);
    expect(cookie.length).toBeGreaterThan("hubgraph_session=".length + 20);
  });

  it("POST /api/session accepts a form body", async () => {
    const { result } = await login("form");
    expect(result.body.user.id).toBe(user.id);
  });

  it("the session is not stored in clear text", async () => {
    const { cookie } = await login("json");
    const raw = decodeURIComponent(cookie.slice("hubgraph_session=".length));
    const rows = await server.app.db.prisma.session.findMany();
    expect(rows.some((row) => Object.values(row).map(String).some((value) => value.includes(raw)))).toBe(false);
  });

  it("GET /api/session answers the same user and csrfToken", async () => {
    const { result, cookie } = await login("json");
    const current = await withCookie(cookie, "GET", "/api/session");
    expect(current.status).toBe(200);
    expect(current.body).toEqual({ user: result.body.user, csrfToken: result.body.csrfToken });
  });

  it("the cookie identifies the caller on REST and on GraphQL (GET, and POST with X-CSRF-Token)", async () => {
    const { result, cookie } = await login("json");
    const me = await withCookie(cookie, "GET", "/api/members/me");
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(user.id);

    const viaGet = await withCookie(cookie, "GET", `/graphql?query=${encodeURIComponent(ME_QUERY)}`, { headers: { accept: "application/json" } });
    expect(viaGet.status).toBe(200);
    expect(viaGet.body.data.me.id).toBe(String(user.id));

    const viaPost = await withCookie(cookie, "POST", "/graphql", {
      headers: { "content-type": "application/json", "x-csrf-token": result.body.csrfToken },
      body: JSON.stringify({ query: ME_QUERY }),
    });
    expect(viaPost.status).toBe(200);
    expect(viaPost.body.data.me.id).toBe(String(user.id));
  });

  it("POST /graphql with only the cookie and no X-CSRF-Token is refused (403)", async () => {
    const { cookie } = await login("json");
    const result = await withCookie(cookie, "POST", "/graphql", {
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: ME_QUERY }),
    });
    expectError(result, 403);
  });

  it("a mutation on POST /graphql with only the cookie needs the right X-CSRF-Token, whatever body a cross-site form can send", async () => {
    const { result, cookie } = await login("json");
    const mutation = 'mutation { createWikiPage(input: { title: "Forged page", pagetext: "Sent cross-site.", state: 1 }) { id createdById } }';
    const post = async (headers: Record<string, string>, body: string) => {
      const response = await fetch(`${server.url}/graphql`, { method: "POST", headers: { cookie, accept: "application/json", ...headers }, body });
      const text = await response.text();
      let parsed: any = null;
      try {
        parsed = JSON.parse(text);
      } catch {
        // Left null: the assertions below name the status and show the text.
      }
      return { status: response.status, headers: response.headers, text, body: parsed };
    };
    const refused = (answer: Awaited<ReturnType<typeof post>>) => {
      expect(answer.status, answer.text.slice(0, 300)).toBe(403);
      expect(answer.body).toMatchObject({ code: 403, message: expect.stringMatching(/CSRF/i) });
    };
    const pages = () => server.app.db.prisma.wikiPage.count();
    const before = await pages();

    // A script on another site would send JSON; without (or with a wrong) token it is refused.
    refused(await post({ "content-type": "application/json" }, JSON.stringify({ query: mutation })));
    refused(await post({ "content-type": "application/json", "x-csrf-token": "wrong" }, JSON.stringify({ query: mutation })));
    // What a plain HTML form on another site can send (no preflight): form-urlencoded (which graphql-yoga
    // would run), text/plain with a JSON-looking body, and multipart/form-data shaped as a GraphQL
    // multipart request. All are refused with 403 before GraphQL reads them.
    refused(await post({ "content-type": "application/x-www-form-urlencoded" }, new URLSearchParams({ query: mutation }).toString()));
    refused(await post({ "content-type": "text/plain" }, JSON.stringify({ query: mutation })));
    const form = new FormData();
    form.set("operations", JSON.stringify({ query: mutation }));
    form.set("map", "{}");
    const multipart = new Request(server.url, { method: "POST", body: form });
    refused(await post({ "content-type": multipart.headers.get("content-type")! }, await multipart.text()));
    expect(await pages()).toBe(before);

    const allowed = await post({ "content-type": "application/json", "x-csrf-token": result.body.csrfToken }, JSON.stringify({ query: mutation }));
    expect(allowed.status, allowed.text.slice(0, 300)).toBe(200);
    expect(allowed.body.errors).toBeUndefined();
    expect(allowed.body.data.createWikiPage.createdById).toBe(user.id);
    expect(await pages()).toBe(before + 1);
  });

  it("unsafe REST requests with only the cookie need the right X-CSRF-Token", async () => {
    const { result, cookie } = await login("json");
    const page = JSON.stringify({ title: "Cookie page", pagetext: "Written with a session." });
    const json = { "content-type": "application/json" };

    expectError(await withCookie(cookie, "POST", "/api/wiki", { headers: json, body: page }), 403);
    expectError(await withCookie(cookie, "POST", "/api/wiki", { headers: { ...json, "x-csrf-token": "wrong" }, body: page }), 403);
    expectError(
      await withCookie(cookie, "POST", "/api/wiki", { headers: { ...json, "x-csrf-token": `${result.body.csrfToken}x` }, body: page }),
      403,
    );
    // Nothing was written by the refused requests.
    expect(await server.app.db.prisma.wikiPage.count({ where: { title: "Cookie page" } })).toBe(0);

    const created = await withCookie(cookie, "POST", "/api/wiki", { headers: { ...json, "x-csrf-token": result.body.csrfToken }, body: page });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.created_by).toBe(user.id);
  });

  it("DELETE /api/session logs out: 204, and the cookie no longer works", async () => {
    const { result, cookie } = await login("json");
    const refused = await withCookie(cookie, "DELETE", "/api/session");
    expectError(refused, 403);

    const response = await fetch(`${server.url}/api/session`, { method: "DELETE", headers: { cookie, "x-csrf-token": result.body.csrfToken } });
    expect(response.status).toBe(204);
    expect(await response.text()).toBe("");
    const cleared = response.headers.getSetCookie().find((line) => line.startsWith("hubgraph_session="));
    expect(cleared).toMatch(/Expires=Thu, 01 Jan 1970/i);

    expectError(await withCookie(cookie, "GET", "/api/members/me"), 401);
    expectError(await withCookie(cookie, "GET", "/api/session"), 401);
  });

  it("an expired session no longer authenticates, and its row is deleted", async () => {
    const { cookie } = await login("json");
    expect((await withCookie(cookie, "GET", "/api/session")).status).toBe(200);
    const tokenHash = hashSecret(decodeURIComponent(cookie.slice("hubgraph_session=".length)));
    const { count } = await server.app.db.prisma.session.updateMany({ where: { tokenHash }, data: { expiresAt: new Date(Date.now() - 60_000) } });
    expect(count).toBe(1);
    expectError(await withCookie(cookie, "GET", "/api/session"), 401);
    expectError(await withCookie(cookie, "GET", "/api/members/me"), 401);
    expect(await server.app.db.prisma.session.count({ where: { tokenHash } })).toBe(0);
  });

  it("login CSRF: a page on another site cannot sign a browser in (Origin or Sec-Fetch-Site), and sets no cookie", async () => {
    const body = JSON.stringify({ username: user.username, password: user.password });
    const post = (headers: Record<string, string>) =>
      fetch(`${server.url}/api/session`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
    const crossSite: Record<string, string>[] = [{ origin: "https://evil.example" }, { origin: "null" }, { "sec-fetch-site": "cross-site" }, { "sec-fetch-site": "same-site" }];
    for (const headers of crossSite) {
      const refused = await post(headers);
      expect(refused.status, JSON.stringify(headers)).toBe(403);
      expect(refused.headers.getSetCookie()).toEqual([]);
      expect(((await refused.json()) as { message: string }).message).toMatch(/origin/i);
    }
    // Same origin, an explicit X-CSRF-Token header (which no cross-site form can send), or no browser at all.
    expect((await post({ origin: server.url })).status).toBe(201);
    expect((await post({ origin: "https://evil.example", "x-csrf-token": "1" })).status).toBe(201);
    expect((await post({ "sec-fetch-site": "same-origin" })).status).toBe(201);
    expect((await post({})).status).toBe(201);
  });

  it("login CSRF: a password grant that carries a session cookie needs that session's X-CSRF-Token", async () => {
    const { cookie, result } = await login("json");
    const grant = (headers: Record<string, string>) =>
      fetch(`${server.url}/api/developer/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
        body: new URLSearchParams({ grant_type: "password", username: user.username, password: user.password }).toString(),
      });
    expect((await grant({ cookie, origin: server.url })).status).toBe(403);
    expect((await grant({ cookie, "x-csrf-token": "1" })).status).toBe(403);
    expect((await grant({ cookie, "x-csrf-token": result.body.csrfToken })).status).toBe(200);
    expect((await grant({})).status).toBe(200);
  });

  it("login CSRF: origins in CORS_ORIGINS may sign in", async () => {
    const withApp = await startServer({ corsOrigins: ["https://app.example.test"] });
    try {
      const member = await withApp.user();
      const post = (origin: string) =>
        fetch(`${withApp.url}/api/session`, {
          method: "POST",
          headers: { "content-type": "application/json", origin },
          body: JSON.stringify({ username: member.username, password: member.password }),
        });
      expect((await post("https://app.example.test")).status).toBe(201);
      expect((await post("https://evil.example")).status).toBe(403);
    } finally {
      await withApp.close();
    }
  });

  it("a bad password is 401 and sets no cookie", async () => {
    const result = await server.rest("POST", "/session", { body: { username: user.username, password: "wrong-password" } });
    expectError(result, 401);
    expect(result.headers.getSetCookie().some((line) => line.startsWith("hubgraph_session="))).toBe(false);
  });

  it("a missing username or password is 400 naming it", async () => {
    const noUser = await server.rest("POST", "/session", { body: { password: "x" } });
    expectError(noUser, 400);
    expect(noUser.body.errors[0].parameter).toBe("username");
    const noPassword = await server.rest("POST", "/session", { form: { username: user.username } });
    expectError(noPassword, 400);
    expect(noPassword.body.errors[0].parameter).toBe("password");
  });

  it("another method on /api/session is 405 with Allow", async () => {
    const result = await server.rest("PUT", "/session", { body: { username: user.username, password: user.password } });
    expectError(result, 405);
    expect(result.headers.get("allow")!.split(/,\s*/).sort()).toEqual(["DELETE", "GET", "POST"]);
  });

  it("GET /api/session without a session is 401", async () => {
    expectError(await server.rest("GET", "/session"), 401);
  });
});

describe("members", () => {
  let admin: TestUser;
  let plain: TestUser;
  let counter = 0;
  const newMember = (extra: Record<string, unknown> = {}) => {
    counter += 1;
    const username = `member${counter}_${Date.now().toString(36)}`;
    return { username, email: `${username}@example.test`, password: "long-enough-password", name: `Member ${counter}`, ...extra };
  };

  beforeAll(async () => {
    admin = await server.user({ admin: true });
    plain = await server.user();
  });

  it("an administrator creates a member: 201, the record without any password field", async () => {
    const input = newMember();
    const result = await server.rest("POST", "/members", { token: admin.token, body: input });
    expect(result.status, JSON.stringify(result.body)).toBe(201);
    expect(result.body).toMatchObject({ username: input.username, email: input.email, name: input.name, admin: false });
    expect(typeof result.body.id).toBe("number");
    expect(result.body.created).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(JSON.stringify(result.body)).not.toMatch(/password/i);
    // The new member can sign in.
    expectTokenResponse(await passwordGrant({ username: input.username, password: input.password }));
  });

  it("an administrator may create an administrator", async () => {
    const result = await server.rest("POST", "/members", { token: admin.token, form: { ...newMember(), admin: "true" } });
    expect(result.status, JSON.stringify(result.body)).toBe(201);
    expect(result.body.admin).toBe(true);
  });

  it("anonymous callers get 401 and plain users 403 when registration is closed", async () => {
    expectError(await server.rest("POST", "/members", { body: newMember() }), 401);
    expectError(await server.rest("POST", "/members", { token: plain.token, body: newMember() }), 403);
  });

  it("a duplicate username is 409 naming username", async () => {
    const input = newMember();
    expect((await server.rest("POST", "/members", { token: admin.token, body: input })).status).toBe(201);
    const again = await server.rest("POST", "/members", { token: admin.token, body: { ...input, email: `other-${input.email}` } });
    expectError(again, 409);
    expect(again.body.errors[0].parameter).toBe("username");
    expect(again.body.message).toContain(input.username);
  });

  it("a duplicate e-mail address is 409 naming email", async () => {
    const input = newMember();
    expect((await server.rest("POST", "/members", { token: admin.token, body: input })).status).toBe(201);
    const again = await server.rest("POST", "/members", { token: admin.token, body: { ...newMember(), email: input.email.toUpperCase() } });
    expectError(again, 409);
    expect(again.body.errors[0].parameter).toBe("email");
  });

  it.each([
    ["email", { email: "not-an-address" }],
    ["password", { password: "short" }],
    ["username", { username: "has spaces!" }],
    ["name", { name: undefined }],
    ["name", { name: "   " }],
  ] as const)("bad input is 400 naming %s", async (parameter, change) => {
    const input: Record<string, unknown> = { ...newMember(), ...change };
    for (const [key, value] of Object.entries(input)) if (value === undefined) delete input[key];
    const result = await server.rest("POST", "/members", { token: admin.token, body: input });
    expectError(result, 400);
    expect(result.body.errors.map((problem: { parameter: string }) => problem.parameter)).toContain(parameter);
    expect(result.body.message).toContain(parameter);
    expect(await server.app.db.prisma.user.count({ where: { username: String(input.username) } })).toBe(0);
  });

  it.each([
    ["a heavily used password", (_member: { username: string; email: string }) => "12345678"],
    ["a common word with a digit", () => "password1"],
    ["a keyboard walk", () => "qwertyuiop"],
    ["the username", (member: { username: string }) => member.username],
    ["the username in capitals", (member: { username: string }) => member.username.toUpperCase()],
    ["the e-mail address", (member: { email: string }) => member.email],
  ])("a weak password (%s) is 400 naming password, and no account is made", async (_case, password) => {
    const member = newMember();
    const result = await server.rest("POST", "/members", { token: admin.token, body: { ...member, password: password(member) } });
    expectError(result, 400);
    expect(result.body.errors.map((problem: { parameter: string }) => problem.parameter)).toEqual(["password"]);
    expect(await server.app.db.prisma.user.count({ where: { username: member.username } })).toBe(0);
  });

  it("a strong password is accepted on GraphQL's createUser too, a weak one is BAD_REQUEST naming password", async () => {
    const weak = await server.graphql(TestCreateUserDocument, { input: { ...newMember(), password: "12345678" } }, admin.token);
    expect(weak.errors[0]?.extensions?.code).toBe("BAD_REQUEST");
    expect(weak.errors[0]?.extensions?.errors?.map((problem) => problem.parameter)).toEqual(["password"]);
    const strong = await server.graphql(TestCreateUserDocument, { input: newMember() }, admin.token);
    expect(strong.errors).toEqual([]);
  });

  it("GET /api/members/me anonymously is 401 with WWW-Authenticate", async () => {
    expectError(await server.rest("GET", "/members/me"), 401);
  });

  it("GET /api/members/me returns the caller without a password field", async () => {
    const result = await server.rest("GET", "/members/me", { token: plain.token });
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ id: plain.id, username: plain.username, admin: false });
    expect(JSON.stringify(result.body)).not.toMatch(/password/i);
  });
});

describe("members with REGISTRATION=open", () => {
  let open: TestServer;
  beforeAll(async () => {
    open = await startServer({ registration: "open" });
  });
  afterAll(async () => {
    await open?.close();
  });

  it("anyone may create an account, but not an administrator", async () => {
    const input = { username: "newcomer", email: "newcomer@example.test", password: "long-enough-password", name: "New Comer" };
    const created = await open.rest("POST", "/members", { body: input });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    // The registrant is still anonymous, so account details read null (docs/decisions.md, Account details)…
    expect(created.body).toMatchObject({ username: "newcomer", email: null, admin: null });
    // …and the account's own view shows it is no administrator.
    const token = await open.rest("POST", "/developer/oauth/token", { form: { grant_type: "password", username: "newcomer", password: input.password } });
    const me = await open.rest("GET", "/members/me", { token: token.body.access_token });
    expect(me.body).toMatchObject({ username: "newcomer", email: "newcomer@example.test", admin: false });

    const escalated = await open.rest("POST", "/members", { body: { ...input, username: "sneaky", email: "sneaky@example.test", admin: true } });
    expectError(escalated, 403);
    expect(await open.app.db.prisma.user.count({ where: { username: "sneaky" } })).toBe(0);

    const plain = await open.user();
    const byUser = await open.rest("POST", "/members", { token: plain.token, body: { ...input, username: "sneaky", email: "sneaky@example.test", admin: "yes" } });
    expectError(byUser, 403);
  });

  it("registering the bootstrap administrator's name first wins nothing: only ADMIN_PASSWORD's holder is promoted, and no password is overwritten", async () => {
    const db = open.app.db.prisma;
    const log = () => {};
    const grant = (username: string, password: string) => open.rest("POST", TOKEN, { form: { grant_type: "password", username, password } });
    const isAdmin = async (username: string) => (await db.user.findUniqueOrThrow({ where: { username } })).isAdmin;
    const register = (username: string, password: string) =>
      open.rest("POST", "/members", { body: { username, email: `${username}@example.test`, password, name: username } });

    // Someone registers the configured name before the next start with ADMIN_USERNAME=boss.
    expect((await register("boss", "attacker-pass1")).status).toBe(201);
    await ensureAdministrator(db, { username: "boss", password: "real-admin-pass" }, log);
    expect(await isAdmin("boss")).toBe(false);
    expectTokenResponse(await grant("boss", "attacker-pass1"));
    expectOAuthError(await grant("boss", "real-admin-pass"), 400, "invalid_grant");
    // The same name in another case is that account (usernames are unique regardless of case): the start
    // neither fails on the unique index nor promotes it.
    await ensureAdministrator(db, { username: "BOSS", password: "real-admin-pass" }, log);
    expect(await isAdmin("boss")).toBe(false);

    // An existing account that holds ADMIN_PASSWORD is promoted.
    expect((await register("chief", "real-admin-pass")).status).toBe(201);
    expect(await isAdmin("chief")).toBe(false);
    await ensureAdministrator(db, { username: "chief", password: "real-admin-pass" }, log);
    expect(await isAdmin("chief")).toBe(true);

    // An existing administrator keeps its password whatever ADMIN_PASSWORD says.
    await ensureAdministrator(db, { username: "chief", password: "changed-admin-pass" }, log);
    expect(await isAdmin("chief")).toBe(true);
    expectTokenResponse(await grant("chief", "real-admin-pass"));
    expectOAuthError(await grant("chief", "changed-admin-pass"), 400, "invalid_grant");
  });
});

describe("bootstrap administrator", () => {
  let booted: TestServer;
  let bootedUsersAtStart: { username: string; isAdmin: boolean }[];
  beforeAll(async () => {
    booted = await startServer({ admin: { username: "boss", password: "boss-keeps-the-keys" } });
    bootedUsersAtStart = await booted.app.db.prisma.user.findMany({ select: { username: true, isAdmin: true } });
  });
  afterAll(async () => {
    await booted?.close();
  });

  it("exists and signs in with the configured password", async () => {
    const token = await booted.rest("POST", TOKEN, { form: { grant_type: "password", username: "boss", password: "boss-keeps-the-keys" } });
    expect(token.status, JSON.stringify(token.body)).toBe(200);
    const me = await booted.graphql(TestMeDocument, {}, token.body.access_token);
    expect(me.errors).toEqual([]);
    expect(me.data!.me).toMatchObject({ username: "boss", admin: true });
    const rest = await booted.rest("GET", "/members/me", { token: token.body.access_token });
    expect(rest.body).toMatchObject({ username: "boss", admin: true });
  });

  it("refuses to create one with a weak ADMIN_PASSWORD, or one equal to the username (start-up fails with that message)", async () => {
    const db = booted.app.db.prisma;
    await expect(ensureAdministrator(db, { username: "boss2", password: "password123" }, () => {})).rejects.toThrow(/ADMIN_PASSWORD is too easy/);
    await expect(ensureAdministrator(db, { username: "keeper-of-keys", password: "Keeper-Of-Keys" }, () => {})).rejects.toThrow(/ADMIN_PASSWORD must not be the username/);
    expect(await db.user.count({ where: { username: { in: ["boss2", "keeper-of-keys"] } } })).toBe(0);
  });

  it("is the only account a server starts with, and a server started without ADMIN_* starts with none", async () => {
    expect(bootedUsersAtStart).toEqual([{ username: "boss", isAdmin: true }]);
    expect(usersAtStart).toEqual([]);
    // So the default server has nobody to sign in as with the bootstrap credentials, nor with guessed ones.
    for (const [username, password] of [["boss", "boss-keeps-the-keys"], ["admin", "admin"], ["admin", "password"]]) {
      expectOAuthError(await server.rest("POST", TOKEN, { form: { grant_type: "password", username: username!, password: password! } }), 400, "invalid_grant");
    }
  });
});
