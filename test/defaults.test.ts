// Operational and security defaults a new installation gets without configuring anything (issue 16):
// the front door at /, security headers, CORS refusals that say why, /metrics for this machine only,
// no X-API-Version naming a version that does not exist, Secure cookies behind a trusted HTTPS proxy.
import os from "node:os";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "./server.js";
import { createHttpServer } from "../src/http/server.js";
import { isLoopback } from "../src/observability/metrics.js";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.close());

const LINKS = ["/graphql", "/api/docs", "/api/openapi.json", "/health", "/ready", "/version"];

describe("the front door", () => {
  it("answers API clients with JSON listing the links", async () => {
    for (const accept of [undefined, "application/json", "*/*"]) {
      const response = await fetch(`${server.url}/`, { headers: accept ? { accept } : {} });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^application\/json/);
      expect(response.headers.get("vary")).toMatch(/Accept/);
      const body = await response.json();
      expect(body).toMatchObject({ name: "hubgraph", version: expect.any(String), apiVersions: expect.arrayContaining(["1.0"]) });
      expect(body.links.map((link: { href: string }) => link.href)).toEqual(LINKS);
    }
  });

  it("answers browsers with an HTML page linking the same", async () => {
    const response = await fetch(`${server.url}/`, { headers: { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await response.text();
    for (const href of LINKS) expect(html).toContain(`href="${href}"`);
  });

  it("GET /version names the server's and the API's versions", async () => {
    const response = await fetch(`${server.url}/version`);
    expect(await response.json()).toMatchObject({ name: "hubgraph", version: expect.stringMatching(/^\d+\.\d+\.\d+/), apiVersions: expect.arrayContaining(["1.0", "1.1"]) });
  });
});

describe("security headers", () => {
  it("are on pages, API answers and errors alike", async () => {
    for (const path of ["/", "/graphql", "/api/docs", "/api/wiki/list", "/api/nothing-here"]) {
      const response = await fetch(`${server.url}${path}`, { headers: { accept: "text/html" } });
      expect(response.headers.get("x-content-type-options"), path).toBe("nosniff");
      expect(response.headers.get("x-frame-options"), path).toBe("DENY");
      expect(response.headers.get("referrer-policy"), path).toBe("no-referrer");
      expect(response.headers.get("content-security-policy"), path).toMatch(/default-src 'self'.*script-src 'self'.*frame-ancestors 'none'/);
      expect(response.headers.get("strict-transport-security"), path).toBeNull();
      // The rest of helmet's, set once per answer from what helmet sets (src/http/security-headers.ts).
      expect(response.headers.get("cross-origin-opener-policy"), path).toBe("same-origin");
      expect(response.headers.get("origin-agent-cluster"), path).toBe("?1");
      expect(response.headers.get("x-dns-prefetch-control"), path).toBe("off");
      expect(response.headers.get("x-download-options"), path).toBe("noopen");
      expect(response.headers.get("x-permitted-cross-domain-policies"), path).toBe("none");
      expect(response.headers.get("x-xss-protection"), path).toBe("0");
      expect(response.headers.get("x-powered-by"), path).toBeNull();
    }
  });

  it("add HSTS only when the request came over HTTPS through a trusted proxy", async () => {
    const proxied = await startServer({ trustProxy: "loopback" });
    try {
      const https = await fetch(`${proxied.url}/health`, { headers: { "x-forwarded-proto": "https" } });
      expect(https.headers.get("strict-transport-security")).toMatch(/max-age=\d+/);
      const http = await fetch(`${proxied.url}/health`);
      expect(http.headers.get("strict-transport-security")).toBeNull();
    } finally {
      await proxied.close();
    }
    // Without TRUST_PROXY the header is the client's word, and not taken.
    const untrusted = await fetch(`${server.url}/health`, { headers: { "x-forwarded-proto": "https" } });
    expect(untrusted.headers.get("strict-transport-security")).toBeNull();
  });
});

describe("CORS without CORS_ORIGINS", () => {
  it("answers a preflight 403 saying cross-origin calls are not enabled, with no CORS headers", async () => {
    for (const path of ["/api/wiki/list", "/graphql"]) {
      const response = await fetch(`${server.url}${path}`, {
        method: "OPTIONS",
        headers: { origin: "https://app.example.com", "access-control-request-method": "POST", "access-control-request-headers": "content-type" },
      });
      expect(response.status, path).toBe(403);
      expect([...response.headers.keys()].filter((name) => name.startsWith("access-control-")), path).toEqual([]);
      expect(await response.json()).toMatchObject({ code: 403, message: expect.stringContaining("CORS_ORIGINS") });
    }
  });

  it("with CORS_ORIGINS, refuses other origins the same way and lets listed ones through", async () => {
    const withCors = await startServer({ corsOrigins: ["https://app.example.com"] });
    try {
      const preflight = (origin: string) =>
        fetch(`${withCors.url}/api/wiki/list`, { method: "OPTIONS", headers: { origin, "access-control-request-method": "GET" } });
      const listed = await preflight("https://app.example.com");
      expect(listed.status).toBe(204);
      expect(listed.headers.get("access-control-allow-origin")).toBe("https://app.example.com");
      // A browser app on a listed origin can read a list's total and a record's version (for If-Match).
      const list = await fetch(`${withCors.url}/api/groups/list`, { headers: { origin: "https://app.example.com" } });
      expect(list.headers.get("access-control-expose-headers")?.split(/,\s*/)).toEqual(expect.arrayContaining(["X-Total-Count", "ETag"]));
      const other = await preflight("https://evil.example.net");
      expect(other.status).toBe(403);
      expect(other.headers.get("access-control-allow-origin")).toBeNull();
      expect((await other.json()).message).toContain("https://evil.example.net");
    } finally {
      await withCors.close();
    }
  });
});

describe("/metrics without METRICS_TOKEN", () => {
  it("refuses a request a proxy on this machine relays (a loopback socket with forwarding headers), trusted proxy or not", async () => {
    const proxied = await startServer({ trustProxy: true });
    try {
      expect((await fetch(`${proxied.url}/metrics`, { headers: { "x-forwarded-for": "203.0.113.7" } })).status).toBe(403);
      expect((await fetch(`${proxied.url}/metrics`, { headers: { forwarded: "for=203.0.113.7" } })).status).toBe(403);
      expect((await fetch(`${proxied.url}/metrics`)).status).toBe(200);
    } finally {
      await proxied.close();
    }
  });

  it("refuses callers from another address with 403, even when X-Forwarded-For says 127.0.0.1", async (context) => {
    // Reaching the server from a non-loopback address needs one on this machine.
    const address = Object.values(os.networkInterfaces())
      .flat()
      .find((candidate) => candidate && candidate.family === "IPv4" && !candidate.internal)?.address;
    if (!address) {
      console.log("skipped: a caller from another address needs a non-loopback IPv4 address on this machine");
      return context.skip();
    }
    const external: Server = await new Promise((resolve) => {
      const listening = createHttpServer(server.app.app).listen(0, address, () => resolve(listening));
    });
    try {
      const { port } = external.address() as AddressInfo;
      const response = await fetch(`http://${address}:${port}/metrics`, { headers: { "x-forwarded-for": "127.0.0.1" } });
      expect(response.status).toBe(403);
      expect((await response.json()).message).toContain("METRICS_TOKEN");
    } finally {
      await new Promise((resolve) => external.close(resolve));
    }
  });

  it("takes 127.0.0.0/8, ::1 and their IPv4-mapped forms as loopback, nothing else", () => {
    for (const address of ["127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1"]) expect(isLoopback(address), address).toBe(true);
    for (const address of [undefined, "", "10.0.0.1", "::ffff:10.0.0.1", "fe80::1", "128.0.0.1", "::"]) expect(isLoopback(address), String(address)).toBe(false);
  });
});

describe("unknown API versions", () => {
  it("are answered 404 without an X-API-Version naming them", async () => {
    for (const asked of [{ query: "?v=9.9" }, { path: "/v9.9" }, { accept: "application/vnd.hubgraph.v9.9+json" }]) {
      const response = await fetch(`${server.url}/api${asked.path ?? ""}/wiki/list${asked.query ?? ""}`, { headers: asked.accept ? { accept: asked.accept } : {} });
      expect(response.status, JSON.stringify(asked)).toBe(404);
      expect(response.headers.get("x-api-version"), JSON.stringify(asked)).toBeNull();
    }
    const known = await fetch(`${server.url}/api/citations/list?v=1.1`);
    expect(known.headers.get("x-api-version")).toBe("1.1");
  });
});

describe("the session cookie", () => {
  const signIn = async (target: TestServer, headers: Record<string, string>) => {
    const user = await target.user();
    const response = await fetch(`${target.url}/api/session`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({ username: user.username, password: user.password }),
    });
    expect(response.status).toBe(201);
    return response.headers.get("set-cookie") ?? "";
  };

  it("is Secure when the request came over HTTPS through a trusted proxy", async () => {
    const proxied = await startServer({ trustProxy: "loopback" });
    try {
      expect(await signIn(proxied, { "x-forwarded-proto": "https" })).toMatch(/;\s*Secure/i);
      expect(await signIn(proxied, {})).not.toMatch(/;\s*Secure/i);
    } finally {
      await proxied.close();
    }
  });

  it("is not Secure because an untrusted client says https", async () => {
    expect(await signIn(server, { "x-forwarded-proto": "https" })).not.toMatch(/;\s*Secure/i);
  });
});

describe("INTROSPECTION", () => {
  const introspect = (target: TestServer, token?: string) =>
    fetch(`${target.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify({ query: "{ __schema { queryType { name } } }" }),
    });

  it("is public by default", async () => {
    const response = await introspect(server);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ data: { __schema: { queryType: { name: "Query" } } } });
  });

  /** Refused as any document that fails validation: errors naming introspection, no data. */
  const refused = async (response: Response) => {
    const body = (await response.json()) as { data?: unknown; errors?: { message: string; extensions: { code: string } }[] };
    return body.data === undefined && Boolean(body.errors?.length) && body.errors!.every((error) => /introspection has been disabled/.test(error.message) && error.extensions.code === "GRAPHQL_VALIDATION_FAILED");
  };

  it("signed-in refuses anonymous callers and lets signed-in ones read it; off refuses everyone", async () => {
    const signedIn = await startServer({ introspection: "signed-in" });
    const off = await startServer({ introspection: "off" });
    try {
      expect(await refused(await introspect(signedIn))).toBe(true);
      expect(await refused(await introspect(signedIn, (await signedIn.user()).token))).toBe(false);
      expect(await refused(await introspect(off, (await off.user({ admin: true })).token))).toBe(true);
      // Ordinary queries are unaffected.
      const query = await fetch(`${off.url}/graphql`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: "{ wikiPages { total } }" }) });
      expect(query.status).toBe(200);
    } finally {
      await signedIn.close();
      await off.close();
    }
  });
});
