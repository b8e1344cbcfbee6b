import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RestResult, type TestServer, type TestUser } from "./server.js";
import { TestRegisterClientDocument } from "./generated/auth.js";

/** RFC 7009 token revocation at POST /api/developer/oauth/revoke (docs/decisions.md, Authentication). */
const TOKEN = "/developer/oauth/token";
const REVOKE = "/developer/oauth/revoke";

let server: TestServer;
let user: TestUser;
let clientId: string;
let clientSecret: string;

beforeAll(async () => {
  server = await startServer();
  user = await server.user();
  const registered = await server.graphql(TestRegisterClientDocument, { name: "Revoking robot" }, user.token);
  ({ clientId, clientSecret } = registered.data!.registerOAuthClient);
});

afterAll(() => server?.close());

const signIn = async (extra: Record<string, string> = {}) => {
  const result = await server.rest("POST", TOKEN, { form: { grant_type: "password", username: user.username, password: user.password, ...extra } });
  expect(result.status, JSON.stringify(result.body)).toBe(200);
  return result.body as { access_token: string; refresh_token: string };
};
const refresh = (refreshToken: string) => server.rest("POST", TOKEN, { form: { grant_type: "refresh_token", refresh_token: refreshToken } });
const works = async (token: string) => (await server.rest("GET", "/members/me", { token })).status === 200;
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`;
const revoke = (form: Record<string, string>, headers: Record<string, string> = {}) => server.rest("POST", REVOKE, { form, headers });

function expectRevoked(result: RestResult): void {
  expect(result.status, JSON.stringify(result.body)).toBe(200);
  expect(result.body).toBeNull();
  expect(result.headers.get("cache-control")).toContain("no-store");
}

describe("POST /api/developer/oauth/revoke", () => {
  it("revoking a refresh token revokes every token of its sign-in, and only those", async () => {
    const other = await signIn();
    const first = await signIn();
    const second = (await refresh(first.refresh_token)).body;
    expect(await works(second.access_token)).toBe(true);
    expectRevoked(await revoke({ token: second.refresh_token, token_type_hint: "refresh_token" }));
    expect(await works(second.access_token)).toBe(false);
    expect((await refresh(second.refresh_token)).body.error).toBe("invalid_grant");
    expect(await works(other.access_token)).toBe(true);
    expect((await refresh(other.refresh_token)).status).toBe(200);
  });

  it("revoking an access token ends it and the refresh token issued with it; a wrong hint does not matter", async () => {
    const pair = await signIn();
    expectRevoked(await revoke({ token: pair.access_token, token_type_hint: "refresh_token" }));
    expect(await works(pair.access_token)).toBe(false);
    expect((await refresh(pair.refresh_token)).body.error).toBe("invalid_grant");
  });

  it("answers 200 for unknown and already revoked tokens, and takes JSON bodies", async () => {
    const pair = await signIn();
    const json = await server.rest("POST", REVOKE, { body: { token: pair.access_token } });
    expectRevoked(json);
    expect(await works(pair.access_token)).toBe(false);
    expectRevoked(await revoke({ token: pair.access_token }));
    expectRevoked(await revoke({ token: "no-such-token", token_type_hint: "something_else" }));
  });

  it("refuses a missing token, or one that is not a string, with 400 invalid_request", async () => {
    for (const result of [await revoke({}), await server.rest("POST", REVOKE, { body: { token: { not: "a string" } } })]) {
      expect(result.status).toBe(400);
      expect(result.body).toMatchObject({ error: "invalid_request", code: 400 });
    }
  });

  it("a confidential client authenticates (body or HTTP Basic) and revokes only its own tokens", async () => {
    const clientToken = (await server.rest("POST", TOKEN, { form: { grant_type: "client_credentials", client_id: clientId, client_secret: clientSecret } })).body.access_token;
    const firstParty = await signIn();
    const wrong = await revoke({ token: clientToken, client_id: clientId, client_secret: "wrong" });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe("invalid_client");
    expect((await revoke({ token: clientToken, client_id: clientId })).status).toBe(401);
    // A token of another client: 200, but it stays (RFC 7009 §2.1: only the client it was issued to may revoke it).
    expectRevoked(await revoke({ token: firstParty.access_token }, { authorization: basic(clientId, clientSecret) }));
    expect(await works(firstParty.access_token)).toBe(true);
    expectRevoked(await revoke({ token: clientToken }));
    expect(await works(clientToken)).toBe(true);
    expectRevoked(await revoke({ token: clientToken }, { authorization: basic(clientId, clientSecret) }));
    expect(await works(clientToken)).toBe(false);
    const byBody = await signIn({ client_id: clientId, client_secret: clientSecret });
    expectRevoked(await revoke({ token: byBody.refresh_token, client_id: clientId, client_secret: clientSecret }));
    expect(await works(byBody.access_token)).toBe(false);
  });

  it("answers 405 with Allow: POST to another method", async () => {
    const result = await server.rest("GET", REVOKE);
    expect(result.status).toBe(405);
    expect(result.headers.get("allow")).toBe("POST");
  });
});

describe("POST /api/developer/oauth/revoke: rate limit", () => {
  let limited: TestServer;
  beforeAll(async () => {
    limited = await startServer({ loginRateLimit: 2 });
  });
  afterAll(() => limited?.close());

  it("counts failed client authentications like failed sign-ins: 429 with Retry-After", async () => {
    const attempt = () => limited.rest("POST", REVOKE, { form: { token: "x", client_id: "client_guess", client_secret: "guess" } });
    expect((await attempt()).status).toBe(401);
    expect((await attempt()).status).toBe(401);
    const third = await attempt();
    expect(third.status).toBe(429);
    expect(third.headers.get("retry-after")).toMatch(/^\d+$/);
    // Successful revocations do not count.
    for (let round = 0; round < 3; round++) expect((await limited.rest("POST", REVOKE, { form: { token: "unknown" } })).status).toBe(200);
  });
});
