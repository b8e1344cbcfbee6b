import http from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, capturingLogger, isServerFault } from "./server.js";
import { REQUEST_TIMEOUTS, createHttpServer } from "../src/http/server.js";

let server: TestServer;
const logged: string[] = [];
beforeAll(async () => {
  server = await startServer(
    { bodyLimit: "2kb" },
    // Request lines are expected; anything logged as a fault of the server (or with an error) is a finding.
    capturingLogger((line) => {
      if (isServerFault(line) || line.err) logged.push(`${line.msg} ${String(line.err?.message ?? "")}`);
    }),
  );
});
afterAll(() => server?.close());

/** Writes `raw` to a fresh connection and resolves with what the server answered and how long until it closed. */
function rawExchange(port: number, raw: string, giveUpMs: number): Promise<{ answer: string; closedAfterMs: number | null }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect(port, "127.0.0.1", () => socket.write(raw));
    let answer = "";
    socket.on("data", (chunk) => (answer += chunk.toString()));
    const giveUp = setTimeout(() => {
      socket.destroy();
      resolve({ answer, closedAfterMs: null });
    }, giveUpMs);
    socket.on("close", () => {
      clearTimeout(giveUp);
      resolve({ answer, closedAfterMs: Date.now() - started });
    });
    socket.on("error", () => {});
  });
}

describe("request timeouts", () => {
  it("are seconds, not Node's minutes", () => {
    expect(REQUEST_TIMEOUTS.headersMs).toBeLessThanOrEqual(REQUEST_TIMEOUTS.requestMs);
    expect(REQUEST_TIMEOUTS.requestMs).toBeLessThanOrEqual(30_000);
    expect(REQUEST_TIMEOUTS.checkEveryMs).toBeLessThanOrEqual(2_000);
  });

  // The same function main.ts and the test harness use, with timeouts short enough for a test.
  const short = { headersMs: 800, requestMs: 1200, checkEveryMs: 100 };

  it("drop a request whose body never arrives (a truncated body) with 408, within seconds", async () => {
    const http = createHttpServer(server.app.app, short).listen(0, "127.0.0.1");
    try {
      await new Promise((resolve) => http.once("listening", resolve));
      const port = (http.address() as AddressInfo).port;
      // Signed in: an anonymous write is answered 401 without its body being read.
      const { token } = await server.user();
      const truncated = `POST /api/wiki HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"title":`;
      const result = await rawExchange(port, truncated, 5_000);
      expect(result.closedAfterMs, "connection still open after 5 s").not.toBeNull();
      expect(result.closedAfterMs!).toBeLessThan(short.requestMs + 1_000);
      expect(result.answer).toMatch(/^HTTP\/1\.1 408/);
    } finally {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    }
  });

  it("drop a request whose headers never finish", async () => {
    const http = createHttpServer(server.app.app, short).listen(0, "127.0.0.1");
    try {
      await new Promise((resolve) => http.once("listening", resolve));
      const port = (http.address() as AddressInfo).port;
      const result = await rawExchange(port, "GET /health HTTP/1.1\r\nHost: localhost\r\nX-Slow: ", 5_000);
      expect(result.closedAfterMs, "connection still open after 5 s").not.toBeNull();
      expect(result.closedAfterMs!).toBeLessThan(short.headersMs + 1_000);
    } finally {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    }
  });
});

describe("BODY_LIMIT on /graphql holds for every content type", () => {
  const padding = "x".repeat(4000);
  const query = "{ wikiPages { total } }";

  it.each([
    ["form-urlencoded", "application/x-www-form-urlencoded", new URLSearchParams({ query, pad: padding }).toString()],
    ["application/graphql", "application/graphql", `${query} # ${padding}`],
    ["JSON", "application/json", JSON.stringify({ query: `${query} # ${padding}` })],
    ["text/plain", "text/plain", padding],
  ])("%s over the limit is 413, with or without Content-Length", async (_case, type, body) => {
    const declared = await fetch(`${server.url}/graphql`, { method: "POST", headers: { "content-type": type }, body });
    expect(declared.status).toBe(413);
    const chunked = await fetch(`${server.url}/graphql`, {
      method: "POST",
      headers: { "content-type": type },
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(body));
          controller.close();
        },
      }),
      duplex: "half",
    } as RequestInit & { duplex: "half" });
    expect(chunked.status).toBe(413);
  });

  it("multipart over the limit is 413", async () => {
    const form = new FormData();
    form.set("operations", JSON.stringify({ query, variables: {} }));
    form.set("map", "{}");
    form.set("pad", padding);
    expect((await fetch(`${server.url}/graphql`, { method: "POST", body: form })).status).toBe(413);
  });

  it("bodies within the limit still work as form, application/graphql and multipart", async () => {
    const expected = { data: { wikiPages: { total: 0 } } };
    const form = await fetch(`${server.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: new URLSearchParams({ query }).toString(),
    });
    expect(await form.json()).toEqual(expected);
    const graphql = await fetch(`${server.url}/graphql`, { method: "POST", headers: { "content-type": "application/graphql", accept: "application/json" }, body: query });
    expect(await graphql.json()).toEqual(expected);
    const multipart = new FormData();
    multipart.set("operations", JSON.stringify({ query }));
    multipart.set("map", "{}");
    expect(await (await fetch(`${server.url}/graphql`, { method: "POST", body: multipart, headers: { accept: "application/json" } })).json()).toEqual(expected);
  });
});

/** A GET carrying a body, which fetch refuses to send: its status and text. */
function getWithBody(url: string, contentType: string, body: string): Promise<{ status: number; text(): Promise<string> }> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: "GET", headers: { "content-type": contentType, "content-length": Buffer.byteLength(body) } }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => resolve({ status: response.statusCode!, text: async () => Buffer.concat(chunks).toString() }));
    });
    request.on("error", reject);
    request.end(body);
  });
}

describe("malformed GraphQL request parameters", () => {
  const typename = encodeURIComponent("{ __typename }");
  it.each([
    ["GET variables that are not JSON", () => fetch(`${server.url}/graphql?query=${typename}&variables=%7Bbad`)],
    ["GET extensions that are not JSON", () => fetch(`${server.url}/graphql?query=${typename}&extensions=%7Bbad`)],
    ["GET variables that are a JSON array", () => fetch(`${server.url}/graphql?query=${typename}&variables=%5B1%5D`)],
    ["GET variables that are a JSON string", () => fetch(`${server.url}/graphql?query=${typename}&variables=%22x%22`)],
    [
      "form variables that are not JSON",
      () => fetch(`${server.url}/graphql`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: `query=${typename}&variables=%7Bbad` }),
    ],
    [
      "form extensions that are not JSON",
      () => fetch(`${server.url}/graphql`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: `query=${typename}&extensions=nope` }),
    ],
    [
      // fetch sends no body with a GET; a client may. Yoga parses a GET from its query string whatever the body.
      "GET variables that are not JSON, sent with a JSON body",
      () => getWithBody(`${server.url}/graphql?query=${typename}&variables=%7Bbad`, "application/json", "{}"),
    ],
    [
      "JSON variables that are an array",
      () => fetch(`${server.url}/graphql`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: "{ __typename }", variables: [1] }) }),
    ],
  ])("%s: BAD_REQUEST with no stack trace, and nothing logged", async (_case, request) => {
    const before = logged.length;
    const response = await request();
    const text = await response.text();
    expect(response.status, text).toBeGreaterThanOrEqual(400);
    expect(response.status, text).toBeLessThan(500);
    const body = JSON.parse(text) as { errors: { message: string; extensions: { code: string } }[] };
    expect(body.errors[0]!.extensions.code).toBe("BAD_REQUEST");
    expect(text).not.toMatch(/\bat .+:\d+:\d+|SyntaxError|stack/);
    expect(logged.slice(before)).toEqual([]);
  });
});
