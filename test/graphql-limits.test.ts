import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "./server.js";
import { QUERY_LIMITS } from "../src/graphql/limits.js";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.close());

async function run(query: string) {
  const response = await fetch(`${server.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify({ query }),
  });
  return (await response.json()) as { data?: unknown; errors?: { message: string }[] };
}


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

  it("refuses documents whose cost is over the limit though under the depth, alias and token limits, and runs cheaper ones", async () => {
    // graphql-armor's cost: a scalar costs 1, an object 2 plus 1.5 × the cost of each field it selects.
    // Repeating the six User scalars `copies` times four levels down (no aliases, depth 5, ~6 tokens per
    // copy) costs 2 + 1.5 × (2 + 1.5 × (2 + 1.5 × (2 + 1.5 × 6 × copies))).
    const userFields = "id name username email admin created";
    const document = (copies: number) =>
      `{ wikiPages { items { revisions { createdBy { ${Array.from({ length: copies }, () => userFields).join(" ")} } } } } }`;
    const cost = (copies: number) => 2 + 1.5 * (2 + 1.5 * (2 + 1.5 * (2 + 1.5 * 6 * copies)));
    expect(cost(200)).toBeGreaterThan(QUERY_LIMITS.maxCost);
    expect(cost(150)).toBeLessThan(QUERY_LIMITS.maxCost);
    expect(document(200).split(/\s+/).length).toBeLessThan(QUERY_LIMITS.maxTokens);

    const costly = await run(document(200));
    expect(costly.data ?? null).toBeNull();
    expect(costly.errors?.map((error) => error.message)).toEqual([expect.stringMatching(/cost/i)]);
    expect(costly.errors?.[0]?.message).toContain(String(cost(200)));

    expect((await run(document(150))).errors).toBeUndefined();
    expect((await run(document(1))).errors).toBeUndefined();
  });

  it("leaves introspection (GraphiQL) alone", async () => {
    const introspection = await run("{ __schema { types { name fields { name type { name ofType { name ofType { name ofType { name ofType { name } } } } } } } } }");
    expect(introspection.errors).toBeUndefined();
  });
});
