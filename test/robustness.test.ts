import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, type TestUser } from "./server.js";
import { restOperations } from "../rest-facade/table.js";
import { pathFor, plausibleValues } from "./rows.js";

/** `{"a":{"a":…}}` nested `levels` deep. */
const nested = (levels: number): unknown => (levels === 0 ? "leaf" : { a: nested(levels - 1) });

/** Values clients send by mistake or on purpose; none of them may produce a 5xx. */
const HOSTILE: unknown[] = [
  nested(200),
  { big: "x".repeat(50_000) },
  "",
  " ",
  "-1",
  "99999999999999999999",
  "1.5",
  "1e3",
  "%_",
  "'; DROP TABLE users; --",
  "nul\u0000byte",
  "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ✓",
  "x".repeat(20_000),
  { $ne: null },
  ["a", "b"],
  [{ nested: true }],
  true,
  2147483648,
  -2147483649,
];

let server: TestServer;
let admin: TestUser;

beforeAll(async () => {
  server = await startServer();
  admin = await server.user({ admin: true });
});

afterAll(() => server?.close());

describe("client input never causes a 5xx", () => {
  for (const operation of restOperations) {
    it(`${operation.method} /api${operation.path}`, async () => {
      const path = await pathFor(server, admin.token, operation);
      const failures: string[] = [];
      for (const param of operation.params) {
        for (const value of HOSTILE) {
          const asQuery = operation.method === "GET" || operation.method === "DELETE";
          const response = asQuery
            ? await server.rest(operation.method, path, {
                token: admin.token,
                query: { [param.name]: typeof value === "string" ? value : JSON.stringify(value) },
              })
            : await server.rest(operation.method, path, { token: admin.token, body: { ...plausibleValues(operation), [param.name]: value } });
          if (response.status >= 500) failures.push(`${param.name}=${JSON.stringify(value).slice(0, 40)} → ${response.status} ${JSON.stringify(response.body)}`);
          else expect(response.body === null || typeof response.body.message === "string" || response.status < 300).toBe(true);
        }
      }
      expect(failures).toEqual([]);
    });
  }

  it("NUL characters are a 400 on GraphQL too, and inside JSON options", async () => {
    const graphql = await fetch(`${server.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${admin.token}` },
      body: JSON.stringify({
        query: "mutation($input: CreateWikiPageInput!) { createWikiPage(input: $input) { id } }",
        variables: { input: { title: "a\u0000b", pagetext: "x" } },
      }),
    });
    const result = (await graphql.json()) as { errors: { extensions: { code: string } }[] };
    expect(result.errors[0]!.extensions.code).toBe("BAD_REQUEST");
    const options = await server.rest("POST", "/wiki", { token: admin.token, body: { title: "t", pagetext: "p", params: { mode: "a\u0000b" } } });
    expect(options.status).toBe(400);
  });

  it("the same holds for path ids", async () => {
    for (const id of ["0", "-1", "2147483648", "1.5", "%20", "list", "99999999999999999999999"]) {
      for (const method of ["GET", "PUT", "DELETE"]) {
        const response = await server.rest(method, `/wiki/${id}`, { token: admin.token, body: method === "PUT" ? { title: "t", pagetext: "p" } : undefined });
        expect(response.status, `${method} /wiki/${id}`).toBeLessThan(500);
      }
    }
  });
});
