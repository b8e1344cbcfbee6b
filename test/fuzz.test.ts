import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import qs from "qs";
import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLObjectType,
  type GraphQLOutputType,
} from "graphql";
import { startServer, type TestServer, type TestUser, capturingLogger, isServerFault } from "./server.js";
import { bodyParams, makeRecord, plausibleValues } from "./rows.js";
import { documentedIn, testingOf } from "./areas.js";
import { restOperations } from "../rest-facade/table.js";
import type { RestOperation } from "../rest-facade/types.js";
import { schema } from "../src/graphql/schema.js";
import { mulberry32 } from "./random.js";

/**
 * A seeded fuzzer over everything a client can reach, generated from the facade table and the GraphQL
 * schema, so a new area is covered without edits: every parameter of every row in every version, every
 * argument (input fields included) of every Query and Mutation field and of the fields they return, the
 * body shapes and headers of every row, and the sign-in endpoints. Each case sends one hostile value;
 * none may produce a 5xx, a stack trace in the response or an "unexpected" line in the log, and the
 * server must stay healthy.
 *
 * FUZZ_SEED=<n> replays a run (every failure message names its seed); FUZZ_CASES (default: one case per
 * target, ≈1,350 today) and FUZZ_SECONDS (default 45, a backstop for slow machines) bound it; `npm run fuzz`
 * runs a long one.
 */
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
/** Cases to run; unset: one per target, so every target gets a case in every run. */
const CASES = process.env.FUZZ_CASES ? Number(process.env.FUZZ_CASES) : undefined;
const SECONDS = Number(process.env.FUZZ_SECONDS ?? 45);
const CONCURRENCY = 4;
/** FUZZ_CASE=<n> (with FUZZ_SEED) runs only case n of that run. */
const ONLY = process.env.FUZZ_CASE ? Number(process.env.FUZZ_CASE) : undefined;
const replay = `replay with FUZZ_SEED=${SEED}`;

// ---------------------------------------------------------------------------------------------------
// Hostile values

const deepObject = (levels: number) => {
  let value: unknown = "leaf";
  for (let level = 0; level < levels; level++) value = { a: value };
  return value;
};
const deepArray = (levels: number) => {
  let value: unknown = 1;
  for (let level = 0; level < levels; level++) value = [value];
  return value;
};
/**
 * JSON text sent as it is: nesting far deeper than JSON.stringify can write (it overflows the test's own
 * stack near 5,000 levels), which is exactly what a hostile client sends.
 */
class RawJson {
  constructor(readonly text: string) {}
}
/** JSON.stringify that writes RawJson values as their text (they are leaves of small containers). */
function toJson(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? "null" : toJson(item))).join(",")}]`;
  if (value && typeof value === "object" && Object.values(value).some((item) => item instanceof RawJson || (item && typeof item === "object"))) {
    const entries = Object.entries(value).filter(([, item]) => item !== undefined);
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${toJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
/** Percent-encoding that also writes lone surrogates, as the (invalid) UTF-8 bytes a hostile client would send. */
function encodePathSegment(text: string): string {
  let encoded = "";
  for (const char of text) {
    // Iterating a string yields code points; a lone surrogate comes as itself, which encodeURIComponent refuses.
    const code = char.codePointAt(0)!;
    encoded +=
      code >= 0xd800 && code <= 0xdfff
        ? [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)].map((byte) => `%${byte.toString(16).toUpperCase()}`).join("")
        : encodeURIComponent(char);
  }
  return encoded;
}

/** A value as one text: strings as they are, everything else as JSON. */
const asText = (value: unknown) => (typeof value === "string" ? value : toJson(value));
const manyKeys = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, index) => [`k${index}`, index]));

/** Values clients send by mistake or on purpose, by kind. */
const CATALOGUE: unknown[] = [
  // types and numbers
  null, true, false, 0, -1, 1.5, -0, 1e308, -1e308, 2 ** 31, -(2 ** 31) - 1, 2 ** 53 + 1, Number.MAX_SAFE_INTEGER,
  "", " ", "0", "-1", "1.5", "1e3", "0x10", " 1 ", "１", "NaN", "Infinity", "-Infinity", "99999999999999999999999", "2147483648", "-2147483649",
  "true", "false", "null", "undefined", "yes", "[]", "{}", "[1,2]", '{"$ne":null}',
  // sizes
  "x".repeat(255), "x".repeat(256), "x".repeat(1025), "x".repeat(20_000), "é".repeat(300_000),
  // unicode
  "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ✓", "👩‍👩‍👧‍👦", "e\u0301", "\u202eevil", "zero\u200bwidth", "\ufeffbom", "İ", "ﬁ", "ß", "\u0000", "nul\u0000byte",
  "\ud800", "\udfff", "a\ud800b", "\udc00\ud800", "\u0085line\u2028sep", "\r\n", "a\r\nSet-Cookie: x=y",
  // injection
  "'; DROP TABLE users; --", "' OR '1'='1", "%_", "%", "_", "\\", "\\\\%", "${{7*7}}", "<script>alert(1)</script>", "../../etc/passwd",
  "__proto__", "constructor", "prototype", "toString", "{{constructor.constructor('return 1')()}}", "$where", "admin' --",
  // dates
  "2024-02-30", "2024-13-01", "0000-01-01", "9999-12-31 23:59:59", "10000-01-01", "2024-01-01T00:00:00+25:00", "-000001-01-01T00:00:00Z", "2024-01-01 24:00:00",
  // structures: arrays for scalars, objects for scalars, deep and huge JSON
  [], [1, 2], ["a", "b"], [[["a"]]], [null], [{ nested: true }], {}, { $ne: null }, { $gt: "" }, JSON.parse('{"__proto__":{"admin":true}}'),
  { toString: 1, valueOf: "x" }, { a: { b: { c: { d: { e: { f: { g: { h: { i: 1 } } } } } } } } },
  deepObject(200), deepObject(1_500), new RawJson(`${'{"a":'.repeat(5_000)}1${"}".repeat(5_000)}`), new RawJson(`${"[".repeat(100_000)}1${"]".repeat(100_000)}`), Array.from({ length: 50_000 }, (_, index) => index), manyKeys(5_000),
  { big: "x".repeat(50_000) },
];

/** UTF-16 code units of every kind, lone surrogates included (fast-check's own string units never produce those). */
const codeUnit = fc.oneof(
  fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit)),
  fc.constantFrom("\ud800", "\udfff", "\u0000", "%", "_", "'", '"', "\\", "\n", "𝔘", "e\u0301"),
);

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...CATALOGUE) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
  { weight: 1, arbitrary: fc.string({ unit: codeUnit, maxLength: 40 }) },
  { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.double(), fc.bigInt().map(String), fc.integer().map(String)) },
  { weight: 1, arbitrary: fc.array(fc.oneof(fc.string({ maxLength: 8 }), fc.integer()), { maxLength: 6 }) },
);

// ---------------------------------------------------------------------------------------------------
// Targets: where a hostile value goes

type Auth = "admin" | "user" | "anonymous";
interface RestTarget {
  kind: "rest";
  operation: RestOperation;
  version: string;
  /** A row parameter, `v` (the version), or a whole-request shape. */
  slot: { param: string; path: boolean; placeholder?: string } | { shape: "body" | "headers" };
}
interface GraphqlTarget {
  kind: "graphql";
  operation: "query" | "mutation";
  field: GraphQLField<unknown, unknown>;
  /** The argument (and input fields below it) the value goes to; `child` when it is an argument of a field of the result. */
  path: string[];
  child?: GraphQLField<unknown, unknown>;
}
interface ProtocolTarget {
  kind: "protocol";
  path: string;
  param: string;
  base: Record<string, string>;
}
type Target = RestTarget | GraphqlTarget | ProtocolTarget;

function restTargets(): RestTarget[] {
  const targets: RestTarget[] = [];
  for (const operation of restOperations) {
    for (const version of operation.versions) {
      for (const param of operation.params) {
        const placeholder = param.placeholder ?? param.name;
        targets.push({ kind: "rest", operation, version, slot: { param: param.name, path: operation.path.includes(`{${placeholder}}`), placeholder } });
      }
      targets.push({ kind: "rest", operation, version, slot: { param: "v", path: false } });
      targets.push({ kind: "rest", operation, version, slot: { shape: "body" } });
      targets.push({ kind: "rest", operation, version, slot: { shape: "headers" } });
    }
  }
  return targets;
}

/** Every argument, and every input field below one (two levels), of a field. */
function argumentPaths(args: readonly GraphQLArgument[]): string[][] {
  const paths: string[][] = [];
  for (const arg of args) {
    paths.push([arg.name]);
    const named = getNamedType(arg.type);
    if (!isInputObjectType(named)) continue;
    for (const field of Object.values(named.getFields())) {
      paths.push([arg.name, field.name]);
      const inner = getNamedType(field.type);
      if (isInputObjectType(inner)) for (const leaf of Object.values(inner.getFields())) paths.push([arg.name, field.name, leaf.name]);
    }
  }
  return paths;
}

/** The object type a field's result holds records of: itself, a list's item, or a `{ items }` page's item. */
function recordType(type: GraphQLOutputType): GraphQLObjectType | null {
  const named = getNamedType(type);
  if (!isObjectType(named)) return null;
  const items = named.getFields().items;
  if (items) {
    const item = getNamedType(items.type);
    return isObjectType(item) ? item : null;
  }
  return named;
}

function graphqlTargets(): GraphqlTarget[] {
  const targets: GraphqlTarget[] = [];
  for (const [operation, root] of [["query", schema.getQueryType()], ["mutation", schema.getMutationType()]] as const) {
    for (const field of Object.values(root?.getFields() ?? {})) {
      for (const path of argumentPaths(field.args)) targets.push({ kind: "graphql", operation, field, path });
      const record = recordType(field.type);
      for (const child of Object.values(record?.getFields() ?? {})) {
        for (const path of argumentPaths(child.args)) targets.push({ kind: "graphql", operation, field, path, child });
      }
    }
  }
  return targets;
}

function protocolTargets(): ProtocolTarget[] {
  const session = { username: "someone", password: "long-enough-password" };
  const grants: Record<string, string>[] = [
    { grant_type: "password", username: "someone", password: "long-enough-password" },
    { grant_type: "refresh_token", refresh_token: "not-a-token" },
    { grant_type: "client_credentials", client_id: "client_x", client_secret: "secret" },
  ];
  return [
    ...Object.keys(session).map((param) => ({ kind: "protocol" as const, path: "/api/session", param, base: session })),
    ...grants.flatMap((base) =>
      [...Object.keys(base), "scope", "client_id"].map((param) => ({ kind: "protocol" as const, path: "/api/developer/oauth/token", param, base })),
    ),
  ];
}

// ---------------------------------------------------------------------------------------------------
// Encoding values into requests

interface Sent {
  description: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | FormData;
}

function depthOf(value: unknown, limit = 6): number {
  let depth = 0;
  let level: unknown[] = [value];
  while (level.length && depth <= limit) {
    const next: unknown[] = [];
    for (const node of level) if (node && typeof node === "object") next.push(...Object.values(node).slice(0, 50));
    if (!next.length) break;
    level = next;
    depth += 1;
  }
  return depth;
}

/** A value as form/query fields: qs brackets for small structures, JSON text for anything large or deep. */
function formPairs(name: string, value: unknown): [string, string][] {
  if (typeof value === "string") return [[name, value]];
  if (value === null || typeof value !== "object" || value instanceof RawJson) return [[name, asText(value)]];
  const small = depthOf(value) <= 4 && toJson(value).length < 2_000;
  if (!small) return [[name, toJson(value)]];
  const encoded = qs.stringify({ [name]: value }, { encode: false, allowEmptyArrays: true });
  return encoded ? encoded.split("&").map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)] as [string, string]) : [[name, ""]];
}

function toForm(values: Record<string, unknown>): URLSearchParams {
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) for (const [key, text] of formPairs(name, value)) form.append(key, text);
  return form;
}

function toMultipart(values: Record<string, unknown>): FormData {
  const form = new FormData();
  for (const [key, text] of toForm(values)) form.append(key, text);
  return form;
}

const CONTENT_TYPES = [
  "text/plain",
  "application/xml",
  "application/octet-stream",
  "application/json; charset=utf-16",
  "application/json; charset=latin1",
  "application/json; charset=bogus",
  "multipart/form-data",
  "multipart/form-data; boundary=",
  "application/x-www-form-urlencoded; charset=iso-8859-1",
  "*/*",
  "application/json, text/plain",
  "application/vnd.api+json",
  "application/graphql",
];

// mulberry32 (test/random.ts) draws the choices around each value; fast-check draws the values themselves.
const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;


const show = (value: unknown) => {
  const text = value instanceof RawJson ? `raw JSON of ${value.text.length} characters` : toJson(value);
  return text.length > 60 ? `${text.slice(0, 57)}…(${text.length})` : text;
};

// ---------------------------------------------------------------------------------------------------

let server: TestServer;
let admin: TestUser;
let plain: TestUser;
const unexpected: string[] = [];
/** Ids of published records per area, for rows with an {id}; refreshed now and then (DELETE cases may hit them). */
const records = new Map<string, number[]>();
const areasWithIds = [...new Set(restOperations.filter((operation) => operation.path.includes("{id}")).map(documentedIn))];

async function refreshRecords() {
  // Fuzzed rows revoke tokens and sessions (DELETE /api/developer/tokens/{id} with a guessed id, …other), the
  // cases' own among them: a fresh administrator keeps the fixtures and the signed-in cases meaningful.
  admin = await server.user({ admin: true });
  for (const area of areasWithIds) {
    const id = await makeRecord(server, admin.token, area);
    records.set(area, [...(records.get(area) ?? []), id].slice(-3));
  }
}

/**
 * Rows whose declaration fills their path itself (AreaTesting.pathFor: a group plugin row's {group} and
 * record): one filled path each, made with the fixtures, so their cases reach the service.
 */
const filledPaths = new Map<RestOperation, string>();

async function fillPaths() {
  for (const operation of restOperations) {
    const testing = testingOf(documentedIn(operation));
    if (testing?.pathFor) filledPaths.set(operation, await testing.pathFor(server, admin.token, operation));
  }
}

const recordId = (area: string, random: () => number) => pick(random, records.get(area) ?? [1]);
const authHeader = (auth: Auth): Record<string, string> =>
  auth === "admin" ? { authorization: `Bearer ${admin.token}` } : auth === "user" ? { authorization: `Bearer ${plain.token}` } : {};

beforeAll(async () => {
  server = await startServer(
    {},
    capturingLogger((line) => {
      if (isServerFault(line)) unexpected.push(`${line.msg} ${String(line.err?.stack ?? "").slice(0, 300)}`);
    }),
  );
  plain = await server.user();
  await refreshRecords();
  await fillPaths();
});
afterAll(() => server?.close());

function restRequest(target: RestTarget, value: unknown, random: () => number, auth: Auth): Sent {
  const { operation, version } = target;
  const base: Record<string, unknown> = { ...plausibleValues(operation) };
  // Now and then one optional parameter with its documented default, so combinations are exercised too.
  const optional = bodyParams(operation).filter((param) => !param.required && param.default !== undefined && param.default !== "now");
  if (optional.length && random() < 0.3) {
    const extra = pick(random, optional);
    base[extra.name] = extra.default;
  }
  let path = filledPaths.get(operation) ?? operation.path.replace("{id}", String(recordId(documentedIn(operation), random)));
  const headers: Record<string, string> = { accept: "application/json", ...authHeader(auth) };
  const query = new URLSearchParams();
  let versionBy = pick(random, ["query", "accept", "prefix", "none"] as const);
  let description = `${operation.method} /api${operation.path} v${version}`;
  let body: string | FormData | undefined;
  const hasBody = operation.method !== "GET" && operation.method !== "DELETE";
  let placement: "json" | "form" | "multipart" | "query" = hasBody ? pick(random, ["json", "json", "form", "multipart", "query"] as const) : "query";

  const slot = target.slot;
  if ("param" in slot) {
    description += ` ${slot.param}=${show(value)}`;
    if (slot.param === "v") {
      versionBy = "none";
      for (const [key, text] of formPairs("v", value)) query.append(key, text);
    } else if (slot.path) {
      const text = asText(value);
      // The hostile value in its own segment; the others as the row's declaration fills them (a group plugin row's {group}).
      const segments = (filledPaths.get(operation) ?? path).split("/");
      segments[operation.path.split("/").indexOf(`{${slot.placeholder ?? slot.param}}`)] = encodePathSegment(text.slice(0, 4_000));
      path = segments.join("/");
      description += " (in the path)";
    } else {
      base[slot.param] = value;
      description += ` (${placement})`;
    }
  } else if (slot.shape === "headers") {
    const text = asText(value);
    const header = pick(random, ["authorization", "accept", "x-csrf-token", "cookie", "content-type"] as const);
    const safe = text.replace(/[^\t\x20-\x7e\x80-\xff]/g, "?").slice(0, 4_000);
    if (header === "authorization") headers.authorization = pick(random, ["Bearer ", "Basic ", "", "bearer  "]) + safe;
    else if (header === "accept") headers.accept = `application/vnd.hubgraph.v${safe}+json`;
    else if (header === "cookie") headers.cookie = `hubgraph_session=${safe}`;
    else headers[header] = safe;
    description += ` header ${header}: ${show(safe)}`;
    if (header === "accept") versionBy = "none";
  } else {
    const shape = pick(random, ["not-an-object", "duplicate-keys", "content-type", "malformed-json", "malformed-multipart"] as const);
    description += ` body ${shape}`;
    placement = "json";
    if (shape === "not-an-object") body = toJson(value);
    else if (shape === "duplicate-keys") {
      const key = Object.keys(base)[0] ?? "title";
      const json = toJson(base);
      body = `{${JSON.stringify(key)}:${toJson(value)},${json.slice(1)}`;
    } else if (shape === "content-type") {
      headers["content-type"] = pick(random, CONTENT_TYPES);
      body = pick(random, [toJson(base), toForm(base).toString(), asText(value)]);
      description += ` ${headers["content-type"]}`;
    } else if (shape === "malformed-json") body = pick(random, ['{"title":', "{'a':1}", '{"a":1}}', "\ufeff{}", "\u0000", "[", '{"a":"\\u12"}', "{\"a\":1,}"]);
    else {
      headers["content-type"] = "multipart/form-data; boundary=XyZ";
      body = pick(random, ["--XyZ\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nb", "garbage", "--XyZ--", "--XyZ\r\nContent-Disposition: form-data; name=\"f\"; filename=\"x.txt\"\r\n\r\ndata\r\n--XyZ--\r\n"]);
    }
    headers["content-type"] ??= "application/json";
  }

  if (versionBy === "query") query.set("v", version);
  else if (versionBy === "accept" && !headers.accept?.includes("vnd.")) headers.accept = `application/vnd.hubgraph.v${version}+json`;
  else if (versionBy === "prefix") path = `/v${version}${path}`;

  if (body === undefined && "param" in slot) {
    if (!hasBody || placement === "query") for (const [key, text] of toForm(base)) query.append(key, text);
    else if (placement === "json") {
      headers["content-type"] = "application/json";
      body = toJson(base);
    } else if (placement === "form") {
      headers["content-type"] = "application/x-www-form-urlencoded";
      body = toForm(base).toString();
    } else body = toMultipart(base);
  } else if (body === undefined) {
    headers["content-type"] = "application/json";
    body = hasBody ? toJson(base) : undefined;
  }
  const search = query.toString();
  return { description: `${description} as ${auth}`, method: operation.method, url: `${server.url}/api${path}${search ? `?${search}` : ""}`, headers, body };
}

/** Plausible values of a GraphQL input type: taken from the row that runs the same field when there is one. */
function plausibleInput(type: GraphQLInputType, name: string): unknown {
  if (isNonNullType(type)) return plausibleInput(type.ofType, name);
  if (isListType(type)) return [plausibleInput(type.ofType, name)];
  if (isInputObjectType(type)) {
    return Object.fromEntries(
      Object.values(type.getFields())
        .filter((field) => isNonNullType(field.type))
        .map((field) => [field.name, plausibleInput(field.type, field.name)]),
    );
  }
  if (isEnumType(type)) return type.getValues()[0]?.value;
  if (isScalarType(type)) {
    if (type.name === "Int" || type.name === "Float") return 0;
    if (type.name === "Boolean") return false;
    if (type.name === "ID") return "1";
    if (type.name === "DateTime") return "2024-01-01T00:00:00Z";
    if (type.name === "JSON") return {};
    return name === "scope" ? "site" : `plausible ${name}`;
  }
  return null;
}

function setPath(target: Record<string, unknown>, path: string[], value: unknown) {
  let node = target;
  for (const key of path.slice(0, -1)) {
    if (!node[key] || typeof node[key] !== "object") node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[path[path.length - 1]!] = value;
}

/** Valid variables for a root field's arguments: from its REST row's plausible values, or from the argument types. */
function plausibleArguments(field: GraphQLField<unknown, unknown>, random: () => number): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const arg of field.args) if (isNonNullType(arg.type)) values[arg.name] = plausibleInput(arg.type, arg.name);
  const row = restOperations.find((operation) => operation.resultField === field.name);
  if (row) {
    const rest = plausibleValues(row);
    for (const param of row.params) if (param.name in rest) setPath(values, param.variable.split("."), rest[param.name]);
    if (row.path.includes("{id}")) values.id = String(recordId(documentedIn(row), random));
  }
  return values;
}

/** A few scalar fields of a result type (no required arguments), so the answer is small but real. */
function selection(type: GraphQLOutputType, child?: GraphQLField<unknown, unknown>, childArgs = ""): string {
  const named = getNamedType(type);
  if (isLeafType(named) || !isObjectType(named)) return "";
  const fields = named.getFields();
  if (fields.items) return `{ total items ${selection(fields.items.type, child, childArgs)} }`;
  const scalars = Object.values(fields)
    .filter((field) => isLeafType(getNamedType(field.type)) && field.args.every((arg) => !isNonNullType(arg.type)))
    .slice(0, 3)
    .map((field) => field.name);
  const nested = child ? ` ${child.name}${childArgs} ${selection(child.type)}` : "";
  return `{ __typename ${scalars.join(" ")}${nested} }`;
}

/** A JS value as a GraphQL literal (for values inlined in the document instead of sent as variables). */
function literal(value: unknown, depth = 0): string {
  if (depth > 30) return "null";
  if (value === null || value === undefined) return "null";
  if (typeof value === "string") return JSON.stringify(value);
  if (value instanceof RawJson) return JSON.stringify(value.text.slice(0, 1000));
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return `[${value.slice(0, 200).map((item) => literal(item, depth + 1)).join(", ")}]`;
  return `{ ${Object.entries(value as object).slice(0, 200).map(([key, item]) => `${/^[_A-Za-z]\w*$/.test(key) ? key : "_bad"}: ${literal(item, depth + 1)}`).join(", ")} }`;
}

function graphqlRequest(target: GraphqlTarget, value: unknown, random: () => number, auth: Auth): Sent {
  const { field, child, path } = target;
  const args = child ? child.args : field.args;
  const rootValues = plausibleArguments(field, random);
  const childValues: Record<string, unknown> = {};
  const values = child ? childValues : rootValues;
  setPath(values, path, value);
  const encoding = pick(random, ["variables", "variables", "variables", "get", "literal"] as const);
  const declare = (list: readonly GraphQLArgument[], prefix: string) => list.map((arg) => `$${prefix}${arg.name}: ${String(arg.type)}`);
  const use = (list: readonly GraphQLArgument[], prefix: string, inline?: Record<string, unknown>) =>
    list.length ? `(${list.map((arg) => `${arg.name}: ${inline && arg.name === path[0] ? literal(inline[arg.name]) : `$${prefix}${arg.name}`}`).join(", ")})` : "";
  const inline = encoding === "literal" ? values : undefined;
  const declared = [...declare(field.args, "r_"), ...declare(child?.args ?? [], "c_")].filter((declaration) => !(inline && declaration.startsWith(`$${child ? "c_" : "r_"}${path[0]}:`)));
  const childArgs = child ? use(child.args, "c_", child ? inline : undefined) : "";
  const document = `${target.operation} Fuzz${declared.length ? `(${declared.join(", ")})` : ""} { ${field.name}${use(field.args, "r_", child ? undefined : inline)} ${selection(field.type, child, childArgs)} }`;
  const variables: Record<string, unknown> = {};
  for (const arg of field.args) if (arg.name in rootValues) variables[`r_${arg.name}`] = rootValues[arg.name];
  for (const arg of child?.args ?? []) if (arg.name in childValues) variables[`c_${arg.name}`] = childValues[arg.name];
  if (inline) delete variables[`${child ? "c_" : "r_"}${path[0]}`];
  void args;
  const description = `GraphQL ${target.operation} ${field.name}${child ? `.${child.name}` : ""}(${path.join(".")}=${show(value)}) as ${encoding} as ${auth}`;
  const headers: Record<string, string> = { accept: "application/json", ...authHeader(auth) };
  if (encoding === "get") {
    const url = `${server.url}/graphql?${new URLSearchParams({ query: document, variables: toJson(variables) })}`;
    // A GET cannot run a mutation; still sent, for the 405 path.
    return { description, method: "GET", url: url.length > 60_000 ? `${server.url}/graphql?query=${encodeURIComponent(document.slice(0, 1000))}` : url, headers };
  }
  return { description, method: "POST", url: `${server.url}/graphql`, headers: { ...headers, "content-type": "application/json" }, body: toJson({ query: document, variables }) };
}

function protocolRequest(target: ProtocolTarget, value: unknown, random: () => number): Sent {
  const values: Record<string, unknown> = { ...target.base, [target.param]: value };
  const asForm = random() < 0.5;
  return {
    description: `POST ${target.path} ${target.param}=${show(value)} (${asForm ? "form" : "json"}, ${target.base.grant_type ?? "session"})`,
    method: "POST",
    url: `${server.url}${target.path}`,
    headers: { "content-type": asForm ? "application/x-www-form-urlencoded" : "application/json" },
    body: asForm ? toForm(values).toString() : toJson(values),
  };
}

/** A connection per case: reusing kept-alive sockets races the server's keep-alive timeout (ECONNRESET) under load. */
const oneShot = new http.Agent({ keepAlive: false });

/** Sends a case over node:http, which (unlike fetch) sends a body with any method, as a careless client may. */
async function send(sent: Sent): Promise<{ status: number; text: string; contentType: string }> {
  let body: Buffer | undefined;
  const headers = { ...sent.headers };
  if (sent.body instanceof FormData) {
    const encoded = new Response(sent.body);
    body = Buffer.from(await encoded.arrayBuffer());
    headers["content-type"] = encoded.headers.get("content-type")!;
  } else if (sent.body !== undefined) body = Buffer.from(sent.body);
  if (body) headers["content-length"] = String(body.length);
  return new Promise((resolve, reject) => {
    let answered: (() => void) | undefined;
    const request = http.request(sent.url, { method: sent.method, headers, agent: oneShot }, (response) => {
      const chunks: Buffer[] = [];
      answered = () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString(), contentType: String(response.headers["content-type"] ?? "") });
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", answered);
      response.on("error", answered);
    });
    request.setTimeout(30_000, () => request.destroy(new Error("no answer within 30 s")));
    // Node 24 answers an oversized request head (431) and resets the connection while this client may
    // still be writing it: the answer came, the reset that follows is not a failure of the server.
    request.on("error", (error) => (answered ? answered() : reject(error)));
    request.end(body);
  });
}

const STACK_TRACE = /\n\s+at\s|\bat [\w.<>]+ \(|\.(?:ts|js|mjs|cjs):\d+:\d+|node_modules|PrismaClient|Invalid `[a-z.]+\(\)` invocation/;

/** What is wrong with an answer, or null. */
function verdict(sent: Sent, status: number, text: string, contentType: string): string | null {
  if (status >= 500) return `HTTP ${status}`;
  if (STACK_TRACE.test(text)) return "stack trace or internals in the response";
  if (!contentType.includes("json") || !text) return null;
  let body: { message?: unknown; errors?: { message?: string; extensions?: { code?: string } }[] };
  try {
    body = JSON.parse(text);
  } catch {
    return "a JSON content type with a body that is not JSON";
  }
  if (sent.url.includes("/graphql")) {
    const masked = body.errors?.find((error) => error.message === "Unexpected error." || error.extensions?.code === "INTERNAL_SERVER_ERROR");
    if (masked) return `masked internal error: ${masked.message}`;
  } else if (status >= 400 && typeof body.message !== "string") return "an error without the contract's message";
  return null;
}

describe("fuzzing every row, argument and sign-in endpoint with hostile values", () => {
  it(`answers every case without a 5xx, a stack trace or a logged error, and stays healthy (${replay})`, async () => {
    const random = mulberry32(SEED);
    const targets: Target[] = [...restTargets(), ...graphqlTargets(), ...protocolTargets()];
    // A seeded order, then round-robin, so every target gets a share whatever the budget.
    for (let index = targets.length - 1; index > 0; index--) {
      const other = Math.floor(random() * (index + 1));
      [targets[index], targets[other]] = [targets[other]!, targets[index]!];
    }
    const cases = CASES ?? targets.length;
    const values = fc.sample(hostileValue, { seed: SEED, numRuns: cases });
    const failures: string[] = [];
    const counts = { rest: 0, graphql: 0, protocol: 0 };
    const healthTimes: number[] = [];
    const started = Date.now();
    let next = 0;

    async function runCase(index: number) {
      // Each case draws from its own generator, so a case is the same whatever ran before it or beside it.
      const random = mulberry32((SEED ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0);
      const target = targets[index % targets.length]!;
      const value = values[index]!;
      const auth = pick(random, ["admin", "admin", "admin", "user", "anonymous"] as const);
      let sent: Sent;
      try {
        sent =
          target.kind === "rest" ? restRequest(target, value, random, auth) : target.kind === "graphql" ? graphqlRequest(target, value, random, auth) : protocolRequest(target, value, random);
      } catch (error) {
        failures.push(`FUZZ_CASE=${index}: the fuzzer could not build the request (${String(error)})`);
        return;
      }
      counts[target.kind] += 1;
      const before = unexpected.length;
      try {
        const response = await send(sent);
        const problem = verdict(sent, response.status, response.text, response.contentType);
        if (problem) failures.push(`FUZZ_CASE=${index} ${sent.description}: ${problem} — ${response.text.slice(0, 200)}`);
      } catch (error) {
        failures.push(`FUZZ_CASE=${index} ${sent.description}: request failed (${String(error)})`);
      }
      if (unexpected.length > before) failures.push(`FUZZ_CASE=${index} ${sent.description}: logged ${unexpected.slice(before).join(" | ").slice(0, 300)}`);
    }

    async function worker() {
      while (next < cases && Date.now() - started < SECONDS * 1000) {
        const index = next++;
        if (ONLY !== undefined && index !== ONLY) continue;
        if (index > 0 && index % 250 === 0) {
          const healthStarted = Date.now();
          const health = await fetch(`${server.url}/health`);
          healthTimes.push(Date.now() - healthStarted);
          if (health.status !== 200) failures.push(`#${index}: /health answered ${health.status}`);
          await refreshRecords();
        }
        await runCase(index);
      }
    }
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const seconds = (Date.now() - started) / 1000;
    console.log(
      `fuzz: seed ${SEED}, ${next} cases (${counts.rest} REST, ${counts.graphql} GraphQL, ${counts.protocol} sign-in) over ${targets.length} targets in ${seconds.toFixed(1)} s; ` +
        `/health took at most ${Math.max(0, ...healthTimes)} ms`,
    );

    // Still healthy: health, readiness and an ordinary read answer promptly.
    const healthStarted = Date.now();
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    expect(Date.now() - healthStarted, replay).toBeLessThan(1000);
    expect((await fetch(`${server.url}/ready`)).status).toBe(200);
    const list = restOperations.find((operation) => operation.method === "GET" && operation.response.kind === "list")!;
    expect((await server.rest("GET", list.path)).status).toBe(200);

    if (ONLY === undefined) expect(next, `only ${next} of ${cases} cases ran within ${SECONDS} s`).toBeGreaterThanOrEqual(Math.min(cases, targets.length));
    expect(failures.slice(0, 25), `${failures.length} failing cases; ${replay}`).toEqual([]);
  }, (SECONDS + 60) * 1000);
});

/**
 * Every failure the fuzzer has found (git log: "found by the fuzzer", "FUZZ_SEED="), as a fixed request
 * that runs in every pass whatever FUZZ_CASES is: a seed replays a different request once rows or
 * arguments are added, so a case kept only as a seed would stop guarding its fix. Add one here with each
 * fix of a fuzzer finding.
 */
describe("the cases the fuzzer found, each a fixed request", () => {
  const json: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
  const found: { finding: string; sent: () => Sent }[] = [
    {
      finding: "caf09fe: a NUL in a sign-in name was a 500 from the database",
      sent: () => ({ description: "password grant with a NUL in the username", method: "POST", url: `${server.url}/api/developer/oauth/token`, headers: json, body: toJson({ grant_type: "password", username: "nul\u0000byte", password: "long-enough-password" }) }),
    },
    {
      finding: "caf09fe: an object with a non-callable toString for a boolean parameter was a 500 in the facade's coercion",
      sent: () => ({ description: "admin: {toString: 1}", method: "POST", url: `${server.url}/api/members`, headers: { ...json, ...authHeader("admin") }, body: toJson({ username: "tostring", email: "tostring@example.test", password: "long-enough-password", name: "T", admin: { toString: 1, valueOf: "x" } }) }),
    },
    {
      finding: "9b3e6db (FUZZ_SEED=1448071148): 100,000 nested brackets in GraphQL variables overflowed the query cost cache's JSON.stringify",
      sent: () => ({ description: "GraphQL variables 100,000 arrays deep", method: "POST", url: `${server.url}/graphql`, headers: json, body: `{"query":"query Deep($search: String) { wikiPages(search: $search) { total } }","variables":{"search":${"[".repeat(100_000)}1${"]".repeat(100_000)}}}` }),
    },
    {
      finding: "9bcb74b: the 1.1 activity list's recipients=0 built an empty OR (500)",
      sent: () => ({ description: "GET /api/v1.1/activity/list?recipients=0", method: "GET", url: `${server.url}/api/v1.1/activity/list?recipients=0`, headers: { accept: "application/json", ...authHeader("user") } }),
    },
    {
      finding: "1299504 (FUZZ_SEED=818242921, case 1875): categoriesIds=[null] reached GraphQL as a null item (500)",
      sent: () => ({ description: "userscategories create with categoriesIds [null]", method: "POST", url: `${server.url}/api/v2.0/forum/userscategories/create`, headers: { ...json, ...authHeader("user") }, body: toJson({ userId: plain.id, categoriesIds: [null] }) }),
    },
  ];

  it.each(found.map((entry) => [entry.finding, entry] as const))("%s: answered without a 5xx, internals or a logged error", async (_finding, entry) => {
    const sent = entry.sent();
    const before = unexpected.length;
    const response = await send(sent);
    expect(verdict(sent, response.status, response.text, response.contentType), `${sent.description}: ${response.status} ${response.text.slice(0, 200)}`).toBeNull();
    expect(response.status).toBeLessThan(500);
    expect(unexpected.slice(before)).toEqual([]);
  });
});
