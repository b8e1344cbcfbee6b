import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "graphql";
import { capturingLogger, isServerFault, startServer, type LoggedLine, type TestServer, type TestUser } from "./server.js";
import { QUERY_LIMITS, assertWithinQueryLimits, queryCost } from "../src/graphql/limits.js";
import { schema } from "../src/graphql/schema.js";
import { restOperations } from "../rest-facade/table.js";

let server: TestServer;
let admin: TestUser;
beforeAll(async () => {
  server = await startServer();
  admin = await server.user({ admin: true });
});
afterAll(() => server?.close());

interface Answer {
  status: number;
  bytes: number;
  ms: number;
  data?: unknown;
  errors?: { message: string; extensions?: { code?: string } }[];
}

async function run(query: string, variables?: Record<string, unknown>): Promise<Answer> {
  const started = Date.now();
  const response = await fetch(`${server.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify({ query, variables }),
  });
  const text = await response.text();
  return { status: response.status, bytes: text.length, ms: Date.now() - started, ...(JSON.parse(text) as object) };
}

/** Published pages with `revisions` revisions of `textBytes` characters each, created over REST. */
async function seedPages(pages: number, revisions: number, textBytes: number, prefix: string) {
  for (let page = 0; page < pages; page++) {
    const created = await server.rest("POST", "/wiki", { token: admin.token, body: { title: `${prefix} ${page}`, pagetext: `r1 ${"x".repeat(textBytes)}`, state: 1 } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    for (let revision = 2; revision <= revisions; revision++) {
      const updated = await server.rest("PUT", `/wiki/${created.body.id}`, { token: admin.token, body: { title: `${prefix} ${page}`, pagetext: `r${revision} ${"y".repeat(textBytes)}`, state: 1 } });
      expect(updated.status).toBe(200);
    }
  }
}

describe("GraphQL query cost counts list sizes", () => {
  it("refuses the probe's amplification query (15 aliases × 100 pages × 100 revisions of text) with a clear 400 in milliseconds", async () => {
    await seedPages(20, 3, 20_000, "Amplified");
    const alias = (index: number) => `a${index}: wikiPages(limit: 100) { items { pagetext revisions(limit: 100) { pagetext } } }`;
    const query = `{ ${Array.from({ length: 15 }, (_, index) => alias(index)).join(" ")} }`;
    expect(query.length).toBeLessThan(1600);

    const answer = await run(query);
    expect(answer.status).toBe(400);
    expect(answer.data ?? null).toBeNull();
    expect(answer.errors).toEqual([{ message: expect.stringMatching(/costs \d+, more than the limit of 5000/), extensions: { code: "BAD_REQUEST" } }]);
    expect(answer.bytes).toBeLessThan(1000);
    // Refused before anything runs (a few ms of work); the bound leaves room for a loaded 2-core machine.
    expect(answer.ms).toBeLessThan(2000);

    // One alias of a modest page is fine, and its answer is what it asked for.
    const single = await run("{ wikiPages(limit: 20, search: \"Amplified\") { total items { pagetext revisions(limit: 3) { pagetext } } } }");
    expect(single.errors).toBeUndefined();
    expect((single.data as { wikiPages: { total: number } }).wikiPages.total).toBe(20);
  });

  it("multiplies by `limit` (25 when absent, 100 for 0), from literals and variables", async () => {
    const nested = (outer: string, inner: string) => `{ wikiPages${outer} { items { id revisions${inner} { id pagetext } } } }`;
    // 1 + 100 × (1 + 1 + (1 + 100 × 2)) = 20,301
    expect(queryCost(schema, parse(nested("(limit: 100)", "(limit: 100)")))).toBe(20_301);
    expect(queryCost(schema, parse(nested("(limit: 0)", "(limit: 500)")))).toBe(20_301);
    // 1 + 25 × (1 + 1 + (1 + 25 × 2)) = 1,326
    expect(queryCost(schema, parse(nested("", "")))).toBe(1_326);

    expect((await run(nested("(limit: 100)", "(limit: 100)"))).status).toBe(400);
    expect((await run(nested("(limit: 10)", "(limit: 10)"))).errors).toBeUndefined();
    expect((await run(nested("", ""))).errors).toBeUndefined();
    const withVariables = "query($pages: Int, $revisions: Int) { wikiPages(limit: $pages) { items { id revisions(limit: $revisions) { id pagetext } } } }";
    expect((await run(withVariables, { pages: 100, revisions: 100 })).errors?.[0]?.message).toMatch(/costs 20301/);
    expect((await run(withVariables, { pages: 5, revisions: 5 })).errors).toBeUndefined();
    // Costs are kept per document and the variables they depend on (page sizes, @skip/@include), so a
    // cheap run's cost is never reused for a costly one, whatever else the variables hold.
    expect((await run(withVariables, { pages: 100, revisions: 100 })).errors?.[0]?.message).toMatch(/costs 20301/);
    const switched = "query($deep: Boolean!, $note: String) { wikiPages(limit: 100, search: $note) { items { id revisions(limit: 100) @include(if: $deep) { id pagetext } } } }";
    expect((await run(switched, { deep: false, note: "a" })).errors).toBeUndefined();
    expect((await run(switched, { deep: true, note: "a" })).errors?.[0]?.message).toMatch(/costs 20301/);
    // Variables that do not fit their types are still the client's error, named as GraphQL names them.
    const wrong = await run(withVariables, { pages: "many" });
    expect(wrong.errors?.[0]?.extensions?.code).toBe("BAD_REQUEST");
    expect(wrong.errors?.[0]?.message).toMatch(/Variable "\$pages"/);
  });

  it("counts every alias and every repeated field", async () => {
    const userFields = "id name username email admin created";
    const many = `{ wikiPages(limit: 100) { items { createdBy { ${Array.from({ length: 10 }, () => userFields).join(" ")} } } } }`;
    // 1 + 100 × (1 + (1 + 60)) = 6,201
    expect(queryCost(schema, parse(many))).toBe(6_201);
    expect((await run(many)).status).toBe(400);
  });
});

describe("GraphQL variables", () => {
  it("an input object of thousands of fields its type does not define is one short error, at once (it took 40 s of the server's CPU and answered 3 MB: the fuzzer's seed 1754002423)", async () => {
    const input: Record<string, number> = {};
    for (let key = 0; key < 3000; key++) input[`k${key}`] = key;
    const answered = await run("mutation Fuzz($input: CreatePluginRecordInput!) { createPluginRecord(input: $input) { id } }", { input });
    expect(answered.errors?.map((error) => [error.message, error.extensions?.code])).toEqual([
      ['Variable "$input" got invalid value {…}; Field "k0" is not defined by type "CreatePluginRecordInput".', "BAD_REQUEST"],
    ]);
    expect(answered.bytes).toBeLessThan(1000);
    // A typo is told as before, with its suggestion and the field named as a parameter.
    const typo = await run("mutation($input: CreatePluginRecordInput!) { createPluginRecord(input: $input) { id } }", { input: { nmae: "x" } });
    expect(typo.errors).toMatchObject([{ extensions: { code: "BAD_REQUEST", errors: [{ parameter: "input", message: 'Field "nmae" is not defined by type "CreatePluginRecordInput". Did you mean "name"?' }] } }]);
  }, 15_000);
});

describe("GraphQL response size", () => {
  it(`replaces an answer larger than ${QUERY_LIMITS.maxResponseBytes / 1024 / 1024} MB by an error, and answers smaller pages`, async () => {
    // Within every other limit (cost 1 + 10 × 2), but 5 texts of 900 KB each.
    await seedPages(5, 1, 900_000, "Huge");
    const big = await run("{ wikiPages(limit: 10, search: \"Huge\") { items { pagetext } } }");
    expect(big.status).toBe(400);
    expect(big.data ?? null).toBeNull();
    expect(big.errors?.[0]?.message).toMatch(/larger than 4 MB/);
    expect(big.bytes).toBeLessThan(1000);

    const small = await run("{ wikiPages(limit: 2, search: \"Huge\") { items { pagetext } } }");
    expect(small.errors).toBeUndefined();
    expect(small.bytes).toBeGreaterThan(1_800_000);

    // A REST row's answer is held to the same limit, measured on the body it writes (no row's answer reaches
    // 4 MB with a 1 MB body limit: the limit is lowered for a moment, in this process, which serves the test).
    const limits = QUERY_LIMITS as { maxResponseBytes: number };
    const limit = limits.maxResponseBytes;
    const page = await server.rest("GET", "/wiki/list", { query: { search: "Huge", limit: 10 } });
    expect(page.status).toBe(200);
    const size = JSON.stringify(page.body).length;
    limits.maxResponseBytes = size - 1;
    try {
      const refused = await server.rest("GET", "/wiki/list", { query: { search: "Huge", limit: 10 } });
      expect(refused.status, JSON.stringify(refused.body).slice(0, 200)).toBe(400);
      expect(refused.body.message).toMatch(/The answer would be larger than/);
      expect((await server.rest("GET", "/wiki/list", { query: { search: "Huge", limit: 1 } })).status).toBe(200);
    } finally {
      limits.maxResponseBytes = limit;
    }
  });
});

describe("the REST facade's documents", () => {
  it("each stays within the depth and cost limits at the largest page size (checked again at every start-up)", () => {
    for (const operation of restOperations) {
      expect(() => assertWithinQueryLimits(schema, operation.document, `${operation.method} ${operation.path}`)).not.toThrow();
    }
  });

  it("a document over the limits is refused at start-up, naming it", () => {
    const costly = parse("query Costly($limit: Int) { wikiPages(limit: $limit) { items { revisions(limit: $limit) { id pagetext } } } }");
    expect(() => assertWithinQueryLimits(schema, costly, "facade row GET /costly")).toThrow(/facade row GET \/costly: the document costs 20201/);
    // With a required input object and an ID among its variables, too.
    const write = parse("mutation W($id: ID!, $input: UpdateWikiPageInput!) { updateWikiPage(id: $id, input: $input) { id revisions(limit: 5) { id } } }");
    expect(() => assertWithinQueryLimits(schema, write, "W")).not.toThrow();
  });
});

describe("GraphQL query limits", () => {
  it("refuses documents nested deeper than the limit, and runs ordinary ones", async () => {
    expect((await run("{ wikiPages { total items { id revisions { id createdBy { name } } } } }")).errors).toBeUndefined();
    // No field of today's schema nests that deep, so the document also names unknown fields; the depth
    // rule measures the document itself, before field validation.
    let selection = "id";
    for (let level = 0; level < QUERY_LIMITS.maxDepth; level++) selection = `revisions { createdBy { ${selection} } }`;
    const deep = await run(`{ wikiPages { items { ${selection} } } }`);
    expect(deep.errors?.some((error) => /depth/i.test(error.message))).toBe(true);
  });

  it("refuses more aliases than the limit", async () => {
    const aliases = Array.from({ length: QUERY_LIMITS.maxAliases + 1 }, (_, index) => `a${index}: wikiPages { total }`).join(" ");
    expect((await run(`{ ${aliases} }`)).errors?.[0]?.message).toMatch(/alias/i);
  });

  it("refuses documents with more tokens than the limit", async () => {
    const fields = Array.from({ length: QUERY_LIMITS.maxTokens }, () => "total").join(" ");
    expect((await run(`{ wikiPages { ${fields} } }`)).errors?.[0]?.message).toMatch(/token/i);
  });

  it("leaves introspection (GraphiQL) alone", async () => {
    const introspection = await run("{ __schema { types { name fields { name type { name ofType { name ofType { name ofType { name ofType { name } } } } } } } } }");
    expect(introspection.errors).toBeUndefined();
  });
});

describe("a deeply nested list literal", () => {
  it("is a 400 naming the problem, logged as nothing of the server's (not 200 'Unexpected error.' with a stack)", async () => {
    const lines: LoggedLine[] = [];
    const watched = await startServer({}, capturingLogger((line) => void lines.push(line)));
    try {
      for (const depth of [3_000, 20_000]) {
        const query = `{ wikiPages(search: ${"[".repeat(depth)}"x"${"]".repeat(depth)}) { total } }`;
        const response = await fetch(`${watched.url}/graphql`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query }) });
        const body = (await response.json()) as Answer;
        expect(response.status, String(depth)).toBe(400);
        expect(body.errors?.[0]?.extensions?.code).toBe("BAD_REQUEST");
        expect(body.errors?.[0]?.message).not.toMatch(/Unexpected error/);
      }
      expect(lines.filter((line) => isServerFault(line) || line.err)).toEqual([]);
    } finally {
      await watched.close();
    }
  });
});
