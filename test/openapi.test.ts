import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Validator } from "@seriousme/openapi-schema-validator";
import { restOperations } from "../rest-facade/table.js";
import { versionedPath } from "../rest-facade/openapi.js";
import { readsPlaceholder } from "../rest-facade/check.js";
import type { OperationObject } from "../rest-facade/openapi-types.js";
import { checkingResponses, takeResponseViolations } from "./openapi-responses.js";
import { startServer, type TestServer } from "./server.js";

/** PUT, PATCH and DELETE rows that do not change one record through the write path (If-Match does not apply: nothing would compare it). */
const WITHOUT_ONE_RECORD = new Set<string>(["DELETE /developer/tokens/others", "DELETE /session/others", "DELETE /forum/userscategories/destroy", "DELETE /developer/tokens/{id}", "DELETE /session/{id}"]);

// GET /api/openapi.json: built at start-up from the facade table and the GraphQL schema. Every response
// the tests receive is checked against it (test/openapi-responses.ts); this file checks the document
// itself, the hook, and the docs page.
describe("OpenAPI document", () => {
  let server: TestServer;
  let document: any;
  beforeAll(async () => {
    server = await startServer();
    const response = await server.rest("GET", "/openapi.json");
    expect(response.status).toBe(200);
    document = response.body;
  });
  afterAll(() => server?.close());

  it("is valid OpenAPI 3.1 (a maintained validator: @seriousme/openapi-schema-validator)", async () => {
    const result = await new Validator().validate(structuredClone(document));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(document.openapi).toBe("3.1.0");
  });

  it("has no two path templates that differ only in their parameters' names (OpenAPI 3.1 forbids them; the validator does not check it)", () => {
    const shapes = new Map<string, string>();
    const clashes: string[] = [];
    for (const path of Object.keys(document.paths)) {
      const shape = path.replace(/\{[^}]*\}/g, "{}");
      const earlier = shapes.get(shape);
      if (earlier) clashes.push(`${earlier} and ${path}`);
      shapes.set(shape, path);
    }
    expect(clashes).toEqual([]);
  });

  it("has every row in every version it answers, with all its parameters, types, defaults and success status", () => {
    expect(restOperations.length).toBeGreaterThan(10);
    for (const row of restOperations) {
      for (const version of row.versions) {
        const path = versionedPath(version, row.path);
        const operation: OperationObject = document.paths[path]?.[row.method.toLowerCase()];
        const name = `${row.method} ${path}`;
        expect(operation, name).toBeDefined();
        expect(operation.summary, name).toBe(row.task);
        expect(Object.keys(operation.responses), name).toContain(String(row.status));
        const body = Object.values(operation.requestBody?.content ?? {})[0]?.schema;
        const documented = new Map<string, any>([
          ...(operation.parameters ?? []).filter((parameter) => parameter.in !== "header").map((parameter) => [parameter.name, parameter.schema] as const),
          ...Object.entries(body?.properties ?? {}),
        ]);
        for (const param of row.params) {
          const schema = documented.get(readsPlaceholder(param)) ?? documented.get(param.name);
          expect(schema, `${name} ${param.name}`).toBeDefined();
          if (param.default !== undefined && !row.path.includes(`{${readsPlaceholder(param)}}`)) expect(schema.default, `${name} ${param.name}`).toEqual(param.default);
        }
        expect(documented.size, name).toBe(row.params.length);
        // Safe retries and conditional writes (src/execution/conditions.ts) are described where they apply.
        const headers = (operation.parameters ?? []).filter((parameter) => parameter.in === "header").map((parameter) => parameter.name);
        // A POST row that writes takes a key; a PUT, PATCH or DELETE of one record (named by its id) takes If-Match.
        const writes = row.document.definitions.some((definition) => definition.kind === "OperationDefinition" && definition.operation === "mutation");
        const changesOne = ["PUT", "PATCH", "DELETE"].includes(row.method) && !WITHOUT_ONE_RECORD.has(`${row.method} ${row.path}`);
        expect(headers, name).toEqual([...(writes && row.method === "POST" ? ["Idempotency-Key"] : []), ...(changesOne ? ["If-Match"] : [])]);
      }
    }
  });

  it("shows a parameter the API document marks required and defaulted as optional with its default (it may be left out)", () => {
    const create = document.paths["/v1.0/groups"].post.requestBody;
    const schema = create.content["application/x-www-form-urlencoded"].schema;
    expect(create.required).toBe(true);
    expect(schema.required.sort()).toEqual(["cn", "title"]);
    expect(schema.properties.join_policy.default).toBe("open");
    expect(schema.properties.discoverability.default).toBe("visible");
    const forum = document.paths["/v1.0/forum"].post.requestBody.content["application/json"].schema;
    expect(forum.required).toEqual(["comment"]);
    expect(forum.properties.category_id.default).toBe(0);
    const categories = document.paths["/v1.0/forum/categories"].get.parameters.find((parameter: { name: string }) => parameter.name === "section");
    expect(categories).toMatchObject({ required: false, schema: { default: 0 } });
  });

  it("describes X-Ignored-Parameters on every answer of every facade operation", () => {
    for (const row of restOperations) {
      const operation: OperationObject = document.paths[versionedPath(row.versions[0]!, row.path)][row.method.toLowerCase()];
      for (const [status, response] of Object.entries(operation.responses)) {
        const resolved = "$ref" in response ? document.components.responses[String(response.$ref).split("/").pop()!] : response;
        expect(Object.keys(resolved.headers ?? {}), `${row.method} ${row.path} ${status}`).toContain("X-Ignored-Parameters");
      }
    }
    expect(document.components.headers.IgnoredParameters.schema).toEqual({ type: "string" });
  });

  it("names the other names a parameter is read under (alsoNamed), in the query and in a body", () => {
    const aliased = restOperations.flatMap((row) => row.params.filter((param) => param.alsoNamed?.length).map((param) => ({ row, param })));
    expect(aliased.length).toBeGreaterThan(0);
    for (const { row, param } of aliased) {
      const operation: OperationObject = document.paths[versionedPath(row.versions[0]!, row.path)][row.method.toLowerCase()];
      const body = Object.values(operation.requestBody?.content ?? {})[0]?.schema;
      const described = operation.parameters?.find((parameter) => parameter.name === param.name)?.description ?? body?.properties?.[param.name]?.description;
      for (const name of param.alsoNamed!) expect(described, `${row.method} ${row.path} ${param.name}`).toContain(`\`${name}\``);
    }
  });

  it("describes the token endpoint, the session and the security schemes (OAuth2 password, client credentials, refresh; bearer; cookie + X-CSRF-Token)", () => {
    expect(document.paths["/developer/oauth/token"].post.responses["200"]).toBeDefined();
    expect(Object.keys(document.paths["/session"]).sort()).toEqual(["delete", "get", "post"]);
    const { oauth2, bearer, session, csrf } = document.components.securitySchemes;
    expect(Object.keys(oauth2.flows).sort()).toEqual(["clientCredentials", "password"]);
    expect(oauth2.flows.password.refreshUrl).toBe("/api/developer/oauth/token");
    expect(bearer).toMatchObject({ type: "http", scheme: "bearer" });
    expect(session).toMatchObject({ type: "apiKey", in: "cookie" });
    expect(csrf).toMatchObject({ type: "apiKey", in: "header", name: "X-CSRF-Token" });
    // A cookie-authenticated write needs the CSRF header; a read does not.
    expect(document.paths["/v1.0/wiki"].post.security).toContainEqual({ session: [], csrf: [] });
    expect(document.paths["/v1.0/wiki/list"].get.security).toContainEqual({ session: [] });
  });

  it("derives response schemas from the rows' GraphQL selections with the facade's rendering (numbers for access levels, REST timestamps, nulls)", () => {
    const page = document.paths["/v1.0/wiki/{id}"].get.responses["200"].content["application/json"].schema;
    expect(page.additionalProperties).toBe(false);
    expect(page.properties.access.enum).toEqual([0, 1, 4]);
    expect(page.properties.created_by).toMatchObject({ type: "integer" });
    expect(page.properties.modified.pattern).toBeDefined();
    expect(page.properties.version.type).toEqual(["object", "null"]);
    const list = document.paths["/v1.0/wiki/list"].get.responses["200"].content["application/json"].schema;
    expect(list.required).toEqual(["pages", "total"]);
    expect(list.properties.pages.items.properties.title).toEqual({ type: "string" });
    expect(document.paths["/v1.0/wiki/{id}"].delete.responses["204"].content).toBeUndefined();
    expect(document.paths["/v1.0/wiki/{id}"].delete.responses["404"]).toEqual({ $ref: "#/components/responses/Error404" });
  });
});

describe("the response check every test server runs", () => {
  /** A stand-in app that answers each request as told, behind the same hook as test servers. */
  let answer: (res: http.ServerResponse) => void = () => {};
  let base = "";
  let plain: http.Server;
  beforeAll(async () => {
    plain = http.createServer(checkingResponses((_req, res) => answer(res)));
    await new Promise<void>((resolve) => plain.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(plain.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => plain.close(resolve)));

  const send = async (path: string, status: number, body: unknown, method = "GET") => {
    answer = (res) => {
      // As express answers: setHeader, then end.
      res.statusCode = status;
      res.setHeader("content-type", "application/json");
      res.setHeader("x-api-version", "1.0");
      res.end(body === undefined ? undefined : JSON.stringify(body));
    };
    await (await fetch(`${base}${path}`, { method })).arrayBuffer();
    return takeResponseViolations();
  };
  const page = { pages: [], total: 0 };

  it("passes a documented answer, at the versioned and the unversioned path", async () => {
    expect(await send("/api/wiki/list", 200, page)).toEqual([]);
    expect(await send("/api/v1.0/wiki/list?v=1.0", 200, page)).toEqual([]);
    expect(await send("/api/wiki/12", 404, { message: "No page 12.", code: 404 })).toEqual([]);
  });

  it("refuses a body of another shape, an undocumented status, a body on 204, and a 200 where no operation is", async () => {
    expect(await send("/api/wiki/list", 200, { ...page, extra: 1 })).toEqual([expect.stringContaining("must NOT have additional properties")]);
    expect(await send("/api/wiki/list", 200, { pages: [{ title: 5 }], total: 0 })).toEqual([expect.stringContaining("does not match")]);
    expect(await send("/api/wiki/list", 500, { message: "Internal server error.", code: 500 })).toEqual([expect.stringContaining("status 500 is not documented")]);
    expect(await send("/api/wiki/list", 400, { message: "Bad.", code: "BAD" })).toEqual([expect.stringContaining("/code must be integer")]);
    expect(await send("/api/wiki/3", 204, { deleted: true }, "DELETE")).toEqual([expect.stringContaining("documents no body")]);
    expect(await send("/api/nowhere", 200, {})).toEqual([expect.stringContaining("no operation in the OpenAPI document")]);
    expect(await send("/api/nowhere", 404, { message: "Nothing here.", code: 404 })).toEqual([]);
  });
});

describe("API docs page", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server?.close());

  it("is served from this server's files only, each answering 200", async () => {
    const response = await fetch(`${server.url}/api/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await response.text();
    expect(html.match(/\b(?:https?:)?\/\/[a-z0-9.-]+/gi) ?? []).toEqual([]);
    const referenced = [...html.matchAll(/<(?:script|link)\b[^>]*?\b(?:src|href)="([^"]+)"/g)].map((match) => match[1]!).filter((url) => !url.startsWith("data:"));
    expect(referenced.length).toBeGreaterThanOrEqual(3);
    for (const url of referenced) {
      const asset = await fetch(new URL(url, response.url));
      expect(asset.status, url).toBe(200);
      expect((await asset.arrayBuffer()).byteLength, url).toBeGreaterThan(0);
    }
    const config = JSON.parse(/<script type="application\/json" id="api-docs-config">([^<]*)<\/script>/.exec(html)![1]!);
    expect(config.url).toBe("/api/openapi.json");
  });
});
