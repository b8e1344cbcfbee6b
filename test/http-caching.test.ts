import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, type TestUser } from "./server.js";

// Conditional requests and cache headers on /api (docs/decisions.md, "HTTP caching"): reads carry an
// ETag and answer 304 to a matching If-None-Match; every response says which request headers it depends
// on (Vary) and who may keep it (Cache-Control).
describe("HTTP caching on /api", () => {
  let server: TestServer;
  let author: TestUser;
  let pageId: number;

  beforeAll(async () => {
    server = await startServer();
    author = await server.user();
    const created = await server.rest("POST", "/wiki", { token: author.token, body: { title: "Cached Page", pagetext: "Version one.", state: 1 } });
    expect(created.status).toBe(201);
    pageId = created.body.id;
  });
  afterAll(() => server?.close());

  const vary = (headers: Headers) => (headers.get("vary") ?? "").split(",").map((name) => name.trim().toLowerCase());

  for (const [label, path] of [
    ["a record", () => `/wiki/${pageId}`],
    ["a list", () => "/wiki/list"],
    ["an area description", () => "/wiki"],
  ] as const) {
    it(`answers 304 to If-None-Match with the ETag of ${label}, with the same Vary and Cache-Control`, async () => {
      const first = await server.rest("GET", path());
      expect(first.status).toBe(200);
      const etag = first.headers.get("etag");
      // A record's ETag is its version (its row's xmin), which If-Match on its writes checks; other answers' are weak hashes.
      expect(etag).toMatch(label === "a record" ? /^"\d+"$/ : /^W\/".+"$/);
      expect(vary(first.headers)).toEqual(expect.arrayContaining(["authorization", "cookie", "accept"]));
      expect(first.headers.get("cache-control")).toBe("public, no-cache");

      // fetch() adds `Cache-Control: no-cache` to a request with a hand-set If-None-Match; Express alone
      // answered 200 to it (src/http/caching.ts says why that is wrong).
      const again = await fetch(new URL(`/api${path()}`, server.url), { headers: { "if-none-match": etag! } });
      expect(again.status).toBe(304);
      expect(await again.text()).toBe("");
      expect(again.headers.get("etag")).toBe(etag);
      expect(vary(again.headers)).toEqual(expect.arrayContaining(["authorization", "cookie", "accept"]));
      expect(again.headers.get("cache-control")).toBe("public, no-cache");

      const stale = await server.rest("GET", path(), { headers: { "if-none-match": 'W/"something-else"' } });
      expect(stale.status).toBe(200);
    });
  }

  it("answers errors in full whatever If-None-Match says", async () => {
    const missing = await server.rest("GET", "/wiki/999999");
    expect(missing.status).toBe(404);
    const again = await server.rest("GET", "/wiki/999999", { headers: { "if-none-match": missing.headers.get("etag") ?? "*" } });
    expect(again.status).toBe(404);
    expect(again.body.code).toBe(404);
  });

  it("changes the ETag when the record changes, so a stale copy is answered in full", async () => {
    const before = await server.rest("GET", `/wiki/${pageId}`);
    const etag = before.headers.get("etag")!;
    const updated = await server.rest("PUT", `/wiki/${pageId}`, {
      token: author.token,
      body: { title: "Cached Page", pagetext: "Version two.", state: 1 },
    });
    expect(updated.status).toBe(200);
    const after = await server.rest("GET", `/wiki/${pageId}`, { headers: { "if-none-match": etag } });
    expect(after.status).toBe(200);
    expect(after.body.pagetext).toBe("Version two.");
    expect(after.headers.get("etag")).not.toBe(etag);
  });

  it("marks answers to signed-in callers private, and revalidates them per caller", async () => {
    const signedIn = await server.rest("GET", `/wiki/${pageId}`, { token: author.token });
    expect(signedIn.status).toBe(200);
    expect(signedIn.headers.get("cache-control")).toBe("private, no-cache");
    expect(vary(signedIn.headers)).toEqual(expect.arrayContaining(["authorization", "cookie", "accept"]));
    const etag = signedIn.headers.get("etag")!;
    const again = await server.rest("GET", `/wiki/${pageId}`, { token: author.token, headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(again.headers.get("cache-control")).toBe("private, no-cache");

    // A draft only its author sees: the author's list and the anonymous list differ, and so do their ETags.
    await server.rest("POST", "/wiki", { token: author.token, body: { title: "Draft", pagetext: "Not yet.", state: 0 } });
    const mine = await server.rest("GET", "/wiki/list", { token: author.token });
    const everyone = await server.rest("GET", "/wiki/list");
    expect(mine.body.total).toBe(everyone.body.total + 1);
    expect(mine.headers.get("etag")).not.toBe(everyone.headers.get("etag"));
    const crossed = await server.rest("GET", "/wiki/list", { headers: { "if-none-match": mine.headers.get("etag")! } });
    expect(crossed.status).toBe(200);
  });

  it("keeps cookie-session answers private too, and never stores the session's CSRF token", async () => {
    const login = await server.rest("POST", "/session", { body: { username: author.username, password: author.password } });
    expect(login.status).toBe(201);
    expect(login.headers.get("cache-control")).toBe("no-store");
    const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
    const session = await server.rest("GET", "/session", { headers: { cookie } });
    expect(session.status).toBe(200);
    expect(session.headers.get("cache-control")).toBe("no-store");
    const read = await server.rest("GET", `/wiki/${pageId}`, { headers: { cookie } });
    expect(read.headers.get("cache-control")).toBe("private, no-cache");
  });

  it("marks writes and token responses no-store", async () => {
    const created = await server.rest("POST", "/wiki", { token: author.token, body: { title: "Written", pagetext: "Text.", state: 1 } });
    expect(created.status).toBe(201);
    expect(created.headers.get("cache-control")).toBe("no-store");
    const token = await server.rest("POST", "/developer/oauth/token", {
      form: { grant_type: "password", username: author.username, password: author.password },
    });
    expect(token.status).toBe(200);
    expect(token.headers.get("cache-control")).toBe("no-store");
  });

  it("varies on Accept, which can pick the API version", async () => {
    const versioned = await server.rest("GET", "/wiki/list", { headers: { accept: "application/vnd.hubgraph.v1.0+json" } });
    expect(versioned.status).toBe(200);
    expect(versioned.headers.get("x-api-version")).toBe("1.0");
    expect(vary(versioned.headers)).toContain("accept");
  });
});
