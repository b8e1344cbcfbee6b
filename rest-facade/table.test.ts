import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, type TestUser } from "../test/server.js";
import { restOperations } from "./table.js";
import type { RestOperation } from "./types.js";
import type { RestParam } from "../src/common/rest-vocabulary.js";
import { bodyParams, pathFor, plausibleValues } from "../test/rows.js";
import { areaTestings, documentedIn } from "../test/areas.js";
import { fieldParams } from "./field-params.js";
import { mustBeGiven } from "./params.js";
import { rowVariables } from "./router.js";
import { runsMutation } from "../src/execution/conditions.js";
import { numericEnumVariables } from "./enums.js";
import { schema } from "../src/graphql/schema.js";
import { isFieldsParam } from "./fields-param.js";
import { print } from "graphql";

/**
 * A row's method, path template and version, placeholders unnamed: the document names a placeholder {id} in
 * one operation and {record_id} in its sibling, which OpenAPI 3.1 forbids, so the rows name them alike
 * while the area transcriptions keep the document's words.
 */
const template = (path: string) => path.replace(/\{\w+\}/g, "{}");
const key = (operation: RestOperation, version: string) => `${operation.method} ${template(operation.path)} ${version}`;
const documentedKey = (transcribed: string) => {
  const [method, path, version] = transcribed.split(" ");
  return `${method} ${template(path!)} ${version}`;
};
const documentedAs = (param: RestParam) => (param.default === undefined ? [param.type, param.required] : [param.type, param.required, param.default]);

/**
 * Each area's transcription of the API document (`documented` in src/<area>/testing.ts), keyed by
 * method, path and version: the facade table must match it exactly; a row added, dropped or changed
 * without the document saying so fails here.
 */
describe("the facade table matches the API document", () => {
  it("every area of the table declares its tests (src/<area>/testing.ts), so no area escapes them", () => {
    // A declaration may serve no rows of its own (announcements: their rows are the group plugins'), but it
    // then documents none: one that documents rows nobody serves is stale.
    const declared = areaTestings.map((testing) => testing.area);
    const served = [...new Set(restOperations.map(documentedIn))].sort();
    expect(served.filter((area) => !declared.includes(area))).toEqual([]);
    expect(areaTestings.filter((testing) => !served.includes(testing.area) && Object.keys(testing.documented).length).map((testing) => testing.area)).toEqual([]);
  });

  for (const testing of areaTestings.filter((candidate) => Object.keys(candidate.documented).length)) {
    // PATCH rows are additions beyond the document, derived from its PUT rows (checked below).
    const rows = restOperations.filter((operation) => documentedIn(operation) === testing.area && !operation.partial);
    it(`${testing.area}: has exactly the documented operations in their documented versions`, () => {
      expect(rows.flatMap((operation) => operation.versions.map((version) => key(operation, version))).sort()).toEqual(Object.keys(testing.documented).map(documentedKey).sort());
    });

    for (const [operation, documented] of Object.entries(testing.documented)) {
      it(`${operation} lists every parameter with the documented type, required flag and default`, () => {
        const row = rows.find((candidate) => candidate.versions.some((version) => key(candidate, version) === documentedKey(operation)))!;
        expect(Object.fromEntries(row.params.map((param) => [param.name, documentedAs(param)]))).toEqual(documented);
      });
    }
  }
});

/**
 * The field tables themselves (src/common/fields.ts), not only the rows built from them: every documented
 * parameter of a POST or PUT row is a path placeholder or a field of the area's table, declared with the
 * documented type, required flag and default for that method (POST: the create input; PUT: the replace).
 */
describe("each area's field table matches the API document", () => {
  for (const testing of areaTestings.filter((candidate) => candidate.fields)) {
    for (const [operation, documented] of Object.entries(testing.documented)) {
      const [method, path] = operation.split(" ");
      if (method !== "POST" && method !== "PUT") continue;
      it(`${operation}: the ${testing.area} field table declares every documented parameter as documented`, () => {
        // The parameters read from the path: named as their placeholder, or saying which one they read (PUT /plugins/{id}: extension_id).
        const row = restOperations.find((candidate) => candidate.method === method && template(candidate.path) === template(path!));
        const placeholders = [
          ...[...path!.matchAll(/\{(\w+)\}/g)].map((found) => found[1]!),
          ...(row?.params.filter((param) => param.placeholder && path!.includes(`{${param.placeholder}}`)).map((param) => param.name) ?? []),
        ];
        const declared = fieldParams(testing.fields!, method === "POST" ? "create" : "replace");
        const fromTable = Object.fromEntries(declared.filter((param) => param.name in documented).map((param) => [param.name, documentedAs(param)]));
        const fromDocument = Object.fromEntries(Object.entries(documented).filter(([name]) => !placeholders.includes(name)));
        expect(fromTable).toEqual(fromDocument);
      });
    }
  }
});

describe("PATCH rows: derived from every PUT row (contract: PATCH is the partial update)", () => {
  const puts = restOperations.filter((operation) => operation.method === "PUT");
  const patches = restOperations.filter((operation) => operation.method === "PATCH");

  it("every PUT row has exactly one PATCH row, and no PATCH row stands alone", () => {
    expect(puts.length).toBeGreaterThan(0);
    expect(patches.map((operation) => `${operation.path} ${operation.versions}`).sort()).toEqual(puts.map((operation) => `${operation.path} ${operation.versions}`).sort());
    expect(patches.every((operation) => operation.partial)).toBe(true);
  });

  for (const put of puts) {
    it(`PATCH ${put.path} runs PUT's document with the same parameters, none required but the path's and none defaulted`, () => {
      const patch = patches.find((operation) => operation.path === put.path)!;
      expect({ ...patch, params: undefined, method: undefined, task: undefined, partial: undefined }).toEqual({ ...put, params: undefined, method: undefined, task: undefined });
      expect(patch.params.map((param) => [param.name, param.type, param.variable])).toEqual(put.params.map((param) => [param.name, param.type, param.variable]));
      for (const param of patch.params) {
        if (put.path.includes(`{${param.placeholder ?? param.name}}`)) expect(param).toEqual(put.params.find((candidate) => candidate.name === param.name));
        else expect([param.name, param.required, param.default]).toEqual([param.name, false, undefined]);
      }
    });
  }
});

let server: TestServer;
let admin: TestUser;
let user: TestUser;

beforeAll(async () => {
  // Registration closed (the default, pinned against the environment): with REGISTRATION=open the
  // decisions let anyone call POST /members.
  server = await startServer({ registration: "closed" });
  admin = await server.user({ admin: true });
  user = await server.user();
});

afterAll(() => server?.close());

async function send(
  operation: RestOperation,
  options: { token?: string; query?: Record<string, string>; headers?: Record<string, string>; prefix?: string; values?: Record<string, unknown> },
) {
  const path = `${options.prefix ?? ""}${await pathFor(server, admin.token, operation)}`;
  const values = options.values ?? {};
  const asQuery = operation.method === "GET" || operation.method === "DELETE";
  return server.rest(operation.method, path, {
    token: options.token,
    headers: options.headers,
    query: { ...options.query, ...(asQuery ? (values as Record<string, string>) : {}) },
    body: asQuery ? undefined : values,
  });
}

describe("required parameters with a documented default (contract: they may be left out)", () => {
  const defaulted = restOperations.filter((operation) => bodyParams(operation).some((param) => param.required && param.default !== undefined));

  it("are shown optional with their default in the served OpenAPI document and area descriptions", async () => {
    // The rows the issue found refusing them (groups' join_policy and discoverability, the forum's category_id) are among them.
    expect(defaulted.map((operation) => `${operation.method} ${operation.path}`)).toEqual(expect.arrayContaining(["POST /groups", "POST /forum", "PUT /groups/{id}"]));
    const openapi = (await server.rest("GET", "/openapi.json")).body;
    const areas = new Map<string, any>();
    for (const operation of defaulted) {
      const version = operation.versions[0]!;
      const entry = openapi.paths[`/v${version}${operation.path}`][operation.method.toLowerCase()];
      const key = `${operation.area} ${version}`;
      if (!areas.has(key)) areas.set(key, (await server.rest("GET", `/${operation.area}`, { query: { v: version } })).body);
      const task = areas.get(key).tasks.find((candidate: any) => candidate.method === operation.method && candidate.uri === `/api${operation.path}`);
      for (const param of bodyParams(operation).filter((candidate) => candidate.required && candidate.default !== undefined)) {
        const where = `${operation.method} ${operation.path} ${param.name}`;
        const query = entry.parameters?.find((candidate: any) => candidate.in === "query" && candidate.name === param.name);
        if (query) {
          expect(query.required, where).toBe(false);
          expect(query.schema.default, where).toEqual(param.default);
        } else {
          for (const [type, media] of Object.entries<any>(entry.requestBody.content)) {
            expect(media.schema.required, `${where} ${type}`).not.toContain(param.name);
            expect(media.schema.properties[param.name].default, `${where} ${type}`).toEqual(param.default);
          }
        }
        expect(task.parameters.find((candidate: any) => candidate.name === param.name), where).toMatchObject({ required: false, default: param.default });
      }
    }
  });
});

describe("every facade row", () => {
  for (const operation of restOperations) {
    describe(`${operation.method} ${operation.path}`, () => {
      it("answers its versions by query, Accept header and path prefix, and 404s others naming the version", async () => {
        const version = operation.versions[0]!;
        const ways: { query?: Record<string, string>; headers?: Record<string, string>; prefix?: string }[] = [
          { query: { v: version } },
          { query: { version } },
          { headers: { accept: `application/vnd.hubgraph.v${version}+json` } },
          { prefix: `/v${version}` },
        ];
        for (const way of ways) {
          const response = await send(operation, { ...way, token: admin.token, values: plausibleValues(operation) });
          expect(response.status, `${JSON.stringify(way)}: ${JSON.stringify(response.body)}`).toBe(operation.status);
          expect(response.headers.get("x-api-version")).toBe(version);
        }
        const missing = await send(operation, { query: { v: "9.9" }, token: admin.token });
        expect(missing.status).toBe(404);
        expect(missing.body.message).toContain("9.9");
      });

      const required = bodyParams(operation).filter(mustBeGiven).map((param) => param.name);
      if (required.length) {
        it(`enforces its required parameters (${required.join(", ")})`, async () => {
          const response = await send(operation, { token: admin.token });
          expect(response.status).toBe(400);
          expect(response.body.code).toBe(400);
          expect(response.body.errors.map((error: { parameter: string }) => error.parameter).sort()).toEqual([...required].sort());
        });
      }

      // Required with a documented default (the contract, amended): left out, the default applies. Each such
      // parameter of each row is left out once; the answer must be the one the default, sent, gives.
      for (const param of bodyParams(operation).filter((candidate) => candidate.required && candidate.default !== undefined)) {
        it(`may leave out ${param.name} (required, default ${JSON.stringify(param.default)}): the default applies`, async () => {
          const { [param.name]: _left, ...values } = plausibleValues(operation);
          const leftOut = await send(operation, { token: admin.token, values });
          expect(leftOut.status, JSON.stringify(leftOut.body)).toBe(operation.status);
          const given = await send(operation, { token: admin.token, values: { ...plausibleValues(operation), [param.name]: param.default } });
          expect(given.status, JSON.stringify(given.body)).toBe(operation.status);
          const record = (body: unknown) => (Array.isArray(body) ? body[0] : body) as Record<string, unknown> | null;
          if (operation.method === "GET") expect(leftOut.body).toEqual(given.body);
          else if (record(given.body) && param.name in record(given.body)!) expect(record(leftOut.body)![param.name]).toEqual(record(given.body)![param.name]);
        });
      }

      if (operation.access !== "anyone") {
        it(`refuses anonymous callers with 401 (access: ${operation.access})`, async () => {
          const response = await send(operation, { values: plausibleValues(operation) });
          expect(response.status).toBe(401);
          expect(response.headers.get("www-authenticate")).toMatch(/Bearer/);
          // Before any parameter is read: with every parameter missing or malformed it is still 401, never a 400
          // that would tell a stranger how to shape the call (contract, amended).
          const malformed = Object.fromEntries(bodyParams(operation).map((param) => [param.name, param.type === "string" ? "\u0000" : "not-a-value"]));
          for (const values of [{}, malformed]) {
            const refused = await send(operation, { values });
            expect(refused.status, JSON.stringify(refused.body)).toBe(401);
            expect(refused.body.errors).toBeUndefined();
          }
        });
      }

      if (operation.access !== "anyone") {
        // The facade's early 401 (router.ts, refusesAnonymous) comes from the row's `access`; the rule itself is
        // the service's. The row's GraphQL document, run anonymously with the variables the row would send,
        // must be refused by the service too: a row that says "signed-in user" for an operation anyone may
        // call would refuse strangers their answer.
        it(`its service refuses anonymous callers as its access field says (${operation.access})`, async () => {
          const path = await pathFor(server, admin.token, operation);
          const template = operation.path.split("/");
          const fromPath = Object.fromEntries(
            path.split("/").flatMap((segment, index) => {
              const placeholder = /^\{(\w+)\}$/.exec(template[index]!)?.[1];
              const param = placeholder && operation.params.find((candidate) => (candidate.placeholder ?? candidate.name) === placeholder);
              return param ? [[param.name, decodeURIComponent(segment)]] : [];
            }),
          );
          const { variables, problems } = rowVariables(
            operation,
            operation.params.filter((param) => !isFieldsParam(param)),
            numericEnumVariables(schema, operation.document),
            { ...plausibleValues(operation), ...fromPath },
          );
          expect(problems).toEqual([]);
          const response = await fetch(`${server.url}/graphql`, {
            method: "POST",
            headers: { "content-type": "application/json", "x-hubgraph-csrf": "1" },
            body: JSON.stringify({ query: print(operation.document), variables }),
          });
          const answer = await response.json();
          expect(answer.errors?.[0]?.extensions?.code, JSON.stringify(answer)).toBe("UNAUTHENTICATED");
        });
      }

      // Checked from the contract, not from the row's own `access` field: every write needs a user (a POST that
      // runs no mutation is a read the API document gives that method: POST /courses/list).
      if (operation.method !== "GET" && runsMutation(operation.document)) {
        it("refuses anonymous callers with 401, whatever its access field says (every write needs a user)", async () => {
          const response = await send(operation, { values: plausibleValues(operation) });
          expect(response.status, JSON.stringify(response.body)).toBe(401);
          expect(response.body).toMatchObject({ code: 401, message: expect.any(String) });
          expect(response.headers.get("www-authenticate")).toMatch(/Bearer/);
        });
      }

      if (operation.access === "anyone") {
        it(`answers anonymous callers with its success status ${operation.status} (access: anyone)`, async () => {
          const response = await send(operation, { values: plausibleValues(operation) });
          expect(response.status, JSON.stringify(response.body)).toBe(operation.status);
        });
      }

      if (operation.access === "administrator") {
        it("refuses signed-in users who are not administrators with 403", async () => {
          const response = await send(operation, { token: user.token, values: plausibleValues(operation) });
          expect(response.status).toBe(403);
        });
      }
    });
  }
});
