import { describe, expect, it } from "vitest";
import { GraphQLError, buildSchema, isAbstractType, isObjectType, parse, type ExecutionResult, type GraphQLFieldResolver, type GraphQLTypeResolver } from "graphql";
import { executeCompiledWhenRepeated } from "./compiled.js";

// A schema of its own with what the app's schema has few of (unions, interfaces, enums, defaults, nulls
// where none may be, mutations), so the compiled form is held to graphql-js's answers on each of them.
const log: string[] = [];
const schema = withResolvers({
  typeDefs: /* GraphQL */ `
    enum Kind { BOOK FILM }
    interface Item { id: ID! title: String! }
    type Book implements Item { id: ID! title: String! pages: Int }
    type Film implements Item { id: ID! title: String! minutes: Int }
    union Result = Book | Film
    input Filter { kind: Kind = BOOK, limit: Int = 2 }
    type Query {
      items(kind: Kind, limit: Int = 3): [Item!]!
      search(filter: Filter = {}): [Result!]!
      broken: Book!
      nested: [Book!]
      thrown: String
      plainError: String
    }
    type Mutation { record(word: String!): [String!]! }
  `,
  resolvers: {
    Item: { __resolveType: (item: { pages?: number }) => ("pages" in item ? "Book" : "Film") },
    Result: { __resolveType: (item: { pages?: number }) => ("pages" in item ? "Book" : "Film") },
    Query: {
      items: (_root: unknown, { kind, limit }: { kind?: string; limit: number }) =>
        [
          { id: "1", title: "A book", pages: 100 },
          { id: "2", title: "A film", minutes: 90 },
          { id: "3", title: "Another book", pages: null },
        ]
          .filter((item) => !kind || (kind === "BOOK") === "pages" in item)
          .slice(0, limit),
      search: (_root: unknown, { filter }: { filter: { kind: string; limit: number } }) =>
        [{ id: "4", title: filter.kind === "BOOK" ? "Found book" : "Found film", ...(filter.kind === "BOOK" ? { pages: filter.limit } : { minutes: filter.limit }) }],
      broken: () => null,
      nested: () => [{ id: "5", title: null }],
      thrown: () => {
        throw new GraphQLError("Not here.", { extensions: { code: "NOT_FOUND" } });
      },
      plainError: async () => {
        throw new Error("database fell over");
      },
    },
    Mutation: {
      record: async (_root: unknown, { word }: { word: string }) => {
        await new Promise((resolve) => setTimeout(resolve, word.length));
        log.push(word);
        return [...log];
      },
    },
  },
});

/** What a client sees of a result (JSON), and what the app's error masking reads (each error's cause). */
const seen = (result: ExecutionResult) => ({
  json: JSON.parse(JSON.stringify(result)),
  causes: result.errors?.map((error) => (error.originalError ? error.originalError.constructor.name : "none")),
});

async function runs(query: string, variables?: Record<string, unknown>, operationName?: string) {
  const document = parse(query);
  const answers = [];
  for (let run = 0; run < 3; run++) {
    answers.push(seen(await executeCompiledWhenRepeated({ schema, document, variableValues: variables, operationName, contextValue: {} })));
  }
  return answers;
}

describe("executeCompiledWhenRepeated: the compiled runs answer as the first, interpreted, one", () => {
  it.each<[string, string, Record<string, unknown>?, string?]>([
    ["interfaces, unions, __typename, aliases and an enum variable", `query($kind: Kind) {
      books: items(kind: $kind) { __typename id ... on Book { pages } }
      all: items { __typename title ... on Film { minutes } }
      search(filter: { kind: FILM }) { __typename ... on Film { title minutes } ... on Book { pages } } }`, { kind: "BOOK" }],
    ["argument and input-object defaults", `query($limit: Int = 1) { items(limit: $limit) { id } search { ... on Book { title pages } } }`],
    ["a fragment spread twice under different @skip/@include", `query($yes: Boolean!, $no: Boolean!) {
      a: items { ...Fields } b: items { ...Fields @include(if: $no) } c: items { ...Fields @skip(if: $yes) } d: items { id ...Fields @include(if: $yes) } }
      fragment Fields on Item { id title }`, { yes: true, no: false }],
    ["null for a non-null field, at the root and inside a list", `{ items { id } broken { id } }`],
    ["null for a non-null field inside a nullable list", `{ nested { id title } }`],
    ["a GraphQLError and a plain Error thrown by resolvers", `{ thrown plainError items { id } }`],
    ["the second of two operations sharing a fragment", `query First { items { ...F @skip(if: true) } } query Second { items { ...F } } fragment F on Item { id title }`, undefined, "Second"],
    ["a missing variable", `query($kind: Kind!) { items(kind: $kind) { id } }`, {}],
    ["an unknown enum value in a variable", `query($kind: Kind) { items(kind: $kind) { id } }`, { kind: "SONG" }],
  ])("%s", async (_case, query, variables, operationName) => {
    const [first, ...later] = await runs(query, variables, operationName);
    for (const answer of later) expect(answer).toEqual(first);
  });

  it("runs mutations one after the other, in the document's order", async () => {
    log.length = 0;
    const answers = await runs(`mutation { long: record(word: "slowest") short: record(word: "a") }`);
    expect(answers[0]!.json.data).toEqual({ long: ["slowest"], short: ["slowest", "a"] });
    expect(answers[2]!.json.data).toEqual({ long: ["slowest", "a", "slowest", "a", "slowest"], short: ["slowest", "a", "slowest", "a", "slowest", "a"] });
  });

  it("compiles the first operation it is asked for without changing what the document's other operations answer", async () => {
    const document = parse(`query First { items { ...F @include(if: false) } } query Second { items { ...F } } fragment F on Item { id }`);
    const run = (operationName: string) => executeCompiledWhenRepeated({ schema, document, operationName, contextValue: {} }) as Promise<ExecutionResult>;
    for (let round = 0; round < 3; round++) await run("First");
    const second = [];
    for (let round = 0; round < 3; round++) second.push(await run("Second"));
    expect(second.map((result) => result.data)).toEqual(Array(3).fill({ items: [{ id: "1" }, { id: "2" }, { id: "3" }] }));
  });
});

// Loosely typed, as resolver maps are: the tests hold the shapes.
type Resolvers = Record<string, Record<string, (...args: any[]) => unknown>>;
/** The SDL's schema with these resolvers (`__resolveType` for unions and interfaces). */
function withResolvers({ typeDefs, resolvers }: { typeDefs: string; resolvers: Resolvers }) {
  const built = buildSchema(typeDefs);
  for (const [typeName, fields] of Object.entries(resolvers)) {
    const type = built.getType(typeName);
    for (const [name, resolver] of Object.entries(fields)) {
      if (name === "__resolveType" && isAbstractType(type)) type.resolveType = resolver as GraphQLTypeResolver<unknown, unknown>;
      else if (isObjectType(type)) type.getFields()[name]!.resolve = resolver as GraphQLFieldResolver<unknown, unknown>;
    }
  }
  return built;
}
