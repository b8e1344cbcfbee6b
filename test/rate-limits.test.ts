import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "./server.js";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const signIn = (target: TestServer, username: string, password: string) =>
  target.rest("POST", "/developer/oauth/token", { form: { grant_type: "password", username, password } });

describe("failed sign-ins", () => {
  it("answer 429 with Retry-After once an account name has failed LOGIN_RATE_LIMIT times from one address", async () => {
    server = await startServer({ loginRateLimit: 3 });
    const victim = await server.user();
    for (let attempt = 0; attempt < 3; attempt++) expect((await signIn(server, victim.username, "wrong-password")).status).toBe(400);
    const blocked = await signIn(server, victim.username, victim.password);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(blocked.body).toMatchObject({ code: 429, message: expect.any(String) });
    const session = await server.rest("POST", "/session", { body: { username: victim.username, password: victim.password } });
    expect(session.status).toBe(429);
    const other = await server.user();
    expect((await signIn(server, other.username, other.password)).status).toBe(200);
  });

  it("are capped per address too, across account names (ten times LOGIN_RATE_LIMIT)", async () => {
    server = await startServer({ loginRateLimit: 1 });
    const user = await server.user();
    for (let attempt = 0; attempt < 10; attempt++) expect((await signIn(server, `nobody${attempt}`, "wrong-password")).status, `attempt ${attempt + 1}`).toBe(400);
    expect((await signIn(server, "nobody-else", "wrong-password")).status).toBe(429);
    expect((await signIn(server, user.username, user.password)).status).toBe(429);
  });

  it("without a login name, token or client id share no bucket: only the address's cap counts them (issue 32: one bucket for all of them)", async () => {
    server = await startServer({ loginRateLimit: 2 });
    const user = await server.user();
    for (let attempt = 0; attempt < 5; attempt++) {
      expect((await server.rest("POST", "/developer/oauth/token", { form: { grant_type: "password", password: "whatever" } })).status, `attempt ${attempt + 1}`).toBe(400);
      expect((await server.rest("POST", "/developer/oauth/token", { form: { grant_type: "refresh_token" } })).status, `attempt ${attempt + 1}`).toBe(400);
    }
    expect((await signIn(server, user.username, user.password)).status).toBe(200);
    // Counted by the address's cap (ten times LOGIN_RATE_LIMIT): 10 so far, 10 more reach it.
    for (let attempt = 0; attempt < 10; attempt++) await server.rest("POST", "/developer/oauth/token", { form: { grant_type: "password", password: "whatever" } });
    expect((await server.rest("POST", "/developer/oauth/token", { form: { grant_type: "password", password: "whatever" } })).status).toBe(429);
  });

  it("do not count successful sign-ins", async () => {
    server = await startServer({ loginRateLimit: 2 });
    const user = await server.user();
    for (let attempt = 0; attempt < 5; attempt++) expect((await signIn(server, user.username, user.password)).status).toBe(200);
  });
});

describe("failed sign-ins per credential", () => {
  // One server for these three: each uses its own accounts, tokens and clients, so its own buckets, and
  // together they stay under the address's cap (ten times LOGIN_RATE_LIMIT).
  let shared: TestServer;
  beforeAll(async () => {
    shared = await startServer({ loginRateLimit: 3 });
  });
  afterAll(() => shared?.close());

  it("count an account's username and e-mail address as one account", async () => {
    const victim = await shared.user();
    const email = `${victim.username}@example.test`;
    expect((await signIn(shared, victim.username, "wrong-password")).status).toBe(400);
    expect((await signIn(shared, email, "wrong-password")).status).toBe(400);
    expect((await signIn(shared, email.toUpperCase(), "wrong-password")).status).toBe(400);
    expect((await signIn(shared, victim.username, victim.password)).status).toBe(429);
    expect((await signIn(shared, email, victim.password)).status).toBe(429);
  });

  it("count bad refresh tokens per token, so one client's retries do not lock out others behind the same address", async () => {
    const user = await shared.user();
    const issued = await signIn(shared, user.username, user.password);
    const refresh = (token: string) => shared.rest("POST", "/developer/oauth/token", { form: { grant_type: "refresh_token", refresh_token: token } });
    for (let attempt = 0; attempt < 3; attempt++) expect((await refresh("stale-token-of-another-app")).status).toBe(400);
    expect((await refresh("stale-token-of-another-app")).status).toBe(429);
    expect((await refresh("yet-another-stale-token")).status).toBe(400);
    expect((await refresh(issued.body.refresh_token)).status).toBe(200);
  });

  it("count bad client credentials per client id", async () => {
    const owner = await shared.user();
    const register = async (name: string) => {
      const response = await fetch(`${shared.url}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${owner.token}` },
        body: JSON.stringify({ query: `mutation { registerOAuthClient(name: "${name}") { clientId clientSecret } }` }),
      });
      return ((await response.json()) as { data: { registerOAuthClient: { clientId: string; clientSecret: string } } }).data.registerOAuthClient;
    };
    const [guessed, other] = [await register("guessed"), await register("other")];
    const grant = (clientId: string, clientSecret: string) =>
      shared.rest("POST", "/developer/oauth/token", { form: { grant_type: "client_credentials", client_id: clientId, client_secret: clientSecret } });
    for (let attempt = 0; attempt < 3; attempt++) expect((await grant(guessed.clientId, "wrong-secret")).status).toBe(401);
    expect((await grant(guessed.clientId, guessed.clientSecret)).status).toBe(429);
    expect((await grant(other.clientId, other.clientSecret)).status).toBe(200);
  });
});

describe("request rate", () => {
  it("is limited per signed-in user, or per address for anonymous callers, on REST and GraphQL", async () => {
    server = await startServer({ rateLimit: 4 });
    // Getting the user's token is the address's first request.
    const user = await server.user();
    for (let request = 0; request < 3; request++) expect((await server.rest("GET", "/wiki/list")).status).toBe(200);
    const limited = await server.rest("GET", "/wiki/list");
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(limited.headers.get("x-api-version")).toBe("1.0");
    const graphql = await fetch(`${server.url}/graphql?query=${encodeURIComponent("{ wikiPages { total } }")}`);
    expect(graphql.status).toBe(429);
    expect((await server.rest("GET", "/wiki/list", { token: user.token })).status).toBe(200);
  });

  it("gives each signed-in user a bucket of their own: one user's 429 leaves other users and anonymous callers alone", async () => {
    server = await startServer({ rateLimit: 4 });
    // Getting the two tokens is the address's first two requests (the token endpoint is called anonymously).
    const limitedUser = await server.user();
    const otherUser = await server.user();
    for (let request = 0; request < 4; request++) {
      expect((await server.rest("GET", "/wiki/list", { token: limitedUser.token })).status, `request ${request + 1}`).toBe(200);
    }
    const limited = await server.rest("GET", "/wiki/list", { token: limitedUser.token });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(limited.body).toMatchObject({ code: 429, message: expect.any(String) });
    const graphql = await fetch(`${server.url}/graphql?query=${encodeURIComponent("{ wikiPages { total } }")}`, {
      headers: { authorization: `Bearer ${limitedUser.token}` },
    });
    expect(graphql.status).toBe(429);

    // Another user, from the same address, still has a full bucket.
    for (let request = 0; request < 4; request++) {
      expect((await server.rest("GET", "/wiki/list", { token: otherUser.token })).status, `other user, request ${request + 1}`).toBe(200);
    }
    // The address itself has used two of its four requests.
    expect((await server.rest("GET", "/wiki/list")).status).toBe(200);
    expect((await server.rest("GET", "/wiki/list")).status).toBe(200);
    expect((await server.rest("GET", "/wiki/list")).status).toBe(429);
    // And the limited user is still limited.
    expect((await server.rest("GET", "/wiki/list", { token: limitedUser.token })).status).toBe(429);
  });
});
