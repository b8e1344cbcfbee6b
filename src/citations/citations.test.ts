import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, type TestUser } from "../../test/server.js";
import { testing } from "./testing.js";

// Paging, sort, literal search and constant SQL statements: test/contract.test.ts. Here: what citations add.

let server: TestServer;
let admin: TestUser;
let user: TestUser;

beforeAll(async () => {
  server = await startServer();
  admin = await server.user({ admin: true });
  user = await server.user();
});
afterAll(() => server?.close());

const gql = async (query: string, variables: Record<string, unknown>, token?: string) => {
  const response = await fetch(`${server.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query, variables }),
  });
  return (await response.json()) as { data?: Record<string, any> | null; errors?: { message: string; extensions: { code: string; errors?: { parameter: string }[] } }[] };
};
const CREATE = `mutation($input: CreateCitationInput!) { createCitation(input: $input) { id title authors authorsText year doi published } }`;
const UPDATE = `mutation($id: ID!, $input: UpdateCitationInput!) { updateCitation(id: $id, input: $input) { id title authors year journal } }`;
const DELETE = `mutation($id: ID!) { deleteCitation(id: $id) }`;
const READ = `query($id: ID!) { citation(id: $id) { id title published } }`;
const list = (query: Record<string, string | number>, token?: string) => server.rest("GET", "/citations/list", { query, token });

describe("GET /api/citations/list", () => {
  it("answers {citations, total, success} with every field under its REST name, the same in 1.0 and 1.1", async () => {
    const id = await testing.create(server, admin.token, {
      type: "inproceedings",
      title: "Radioactive substances",
      authors: ["Curie, Marie", "Curie, Pierre"],
      year: 1904,
      booktitle: "Proceedings of the Academy",
      volume: "3",
      issue: "2",
      pages: "1-20",
      publisher: "Gauthier-Villars",
      doi: "10.1000/radium",
      url: "https://example.org/radium",
      abstract: "On radium.",
    });
    const response = await list({ search: "radioactive" });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(["citations", "success", "total"]);
    expect(response.body).toMatchObject({ total: 1, success: true });
    expect(response.body.citations[0]).toEqual({
      id,
      type: "inproceedings",
      title: "Radioactive substances",
      author: "Curie, Marie; Curie, Pierre",
      year: 1904,
      journal: "",
      booktitle: "Proceedings of the Academy",
      volume: "3",
      issue: "2",
      pages: "1-20",
      publisher: "Gauthier-Villars",
      doi: "10.1000/radium",
      url: "https://example.org/radium",
      abstract: "On radium.",
      published: 1,
      uri: `/citations/${id}`,
      created: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
      created_by: admin.id,
      modified: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
    });
    const v11 = await list({ search: "radioactive", v: "1.1" });
    expect(v11.headers.get("x-api-version")).toBe("1.1");
    expect(v11.body).toEqual(response.body);
  });

  it("searches authors, journal and book title as well as the title", async () => {
    await testing.create(server, admin.token, { title: "On light", authors: ["Maxwell, James Clerk"], journal: "Philosophical Transactions" });
    await testing.create(server, admin.token, { title: "On heat", authors: ["Kelvin"], booktitle: "Collected Papers of Thermodynamics" });
    expect((await list({ search: "maxwell" })).body.total).toBe(1);
    expect((await list({ search: "PHILOSOPHICAL" })).body.total).toBe(1);
    expect((await list({ search: "thermodynamics" })).body.total).toBe(1);
  });

  it("lists unpublished citations, and counts them, to administrators only", async () => {
    const hidden = await testing.create(server, admin.token, { title: "Unlisted draft citation", published: 0 });
    for (const [token, seen] of [[undefined, false], [user.token, false], [admin.token, true]] as const) {
      const response = await list({ search: "unlisted draft" }, token);
      expect(response.body.total).toBe(seen ? 1 : 0);
      expect(response.body.citations.map((citation: { id: number }) => citation.id)).toEqual(seen ? [hidden] : []);
      const read = await gql(READ, { id: String(hidden) }, token);
      expect(read.errors?.[0]?.extensions.code ?? "OK").toBe(seen ? "OK" : "NOT_FOUND");
    }
  });
});

describe("GraphQL: administrators write citations", () => {
  it("refuses anonymous callers and plain users", async () => {
    const input = { title: "Not mine to add" };
    expect((await gql(CREATE, { input })).errors?.[0]?.extensions.code).toBe("UNAUTHENTICATED");
    expect((await gql(CREATE, { input }, user.token)).errors?.[0]?.extensions.code).toBe("FORBIDDEN");
    const id = String(await testing.create(server, admin.token, { title: "Kept as it was" }));
    expect((await gql(UPDATE, { id, input: { title: "Changed" } }, user.token)).errors?.[0]?.extensions.code).toBe("FORBIDDEN");
    expect((await gql(DELETE, { id }, user.token)).errors?.[0]?.extensions.code).toBe("FORBIDDEN");
    expect((await gql(READ, { id })).data?.citation.title).toBe("Kept as it was");
  });

  it.each([
    ["title", { title: "  " }],
    ["type", { type: "poem" }],
    ["year", { year: 99 }],
    ["doi", { doi: "doi:10.1000/x" }],
    ["url", { url: "javascript:alert(1)" }],
    ["authors", { authors: ["A; B"] }],
    ["published", { published: 2 }],
  ])("refuses a bad %s with BAD_REQUEST naming it, storing nothing", async (parameter, values) => {
    const before = await server.app.db.prisma.citation.count();
    const response = await gql(CREATE, { input: { title: "Valid title", ...values } }, admin.token);
    expect(response.errors?.[0]?.extensions.code).toBe("BAD_REQUEST");
    expect(response.errors?.[0]?.extensions.errors?.[0]?.parameter).toBe(parameter);
    expect(await server.app.db.prisma.citation.count()).toBe(before);
  });

  it("creates with defaults, updates only the given fields, clears with null and deletes", async () => {
    const created = await gql(CREATE, { input: { title: "Defaults", authors: [" Noether, Emmy "] } }, admin.token);
    expect(created.errors).toBeUndefined();
    expect(created.data!.createCitation).toMatchObject({ title: "Defaults", authors: ["Noether, Emmy"], authorsText: "Noether, Emmy", year: null, doi: "", published: 1 });
    const id = created.data!.createCitation.id;
    const updated = await gql(UPDATE, { id, input: { year: 1918, journal: "Nachrichten" } }, admin.token);
    expect(updated.data!.updateCitation).toEqual({ id, title: "Defaults", authors: ["Noether, Emmy"], year: 1918, journal: "Nachrichten" });
    const cleared = await gql(UPDATE, { id, input: { year: null, authors: null } }, admin.token);
    expect(cleared.data!.updateCitation).toMatchObject({ year: null, authors: [], journal: "Nachrichten" });
    expect((await gql(DELETE, { id }, admin.token)).data!.deleteCitation).toBe(id);
    expect((await gql(DELETE, { id }, admin.token)).errors?.[0]?.extensions.code).toBe("NOT_FOUND");
    expect((await gql(UPDATE, { id, input: { title: "Gone" } }, admin.token)).errors?.[0]?.extensions.code).toBe("NOT_FOUND");
  });
});
