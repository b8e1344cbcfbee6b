import { describe, expect, it } from "vitest";
import { concatAST, parse } from "graphql";
import { schema } from "../src/graphql/schema.js";
import { loadConfig } from "../src/config.js";
import { checkFacadeTable } from "./check.js";
import { restFacade } from "./router.js";
import { restOperations } from "./table.js";
import type { RestOperation } from "./types.js";
import type { RestParam } from "../src/common/rest-vocabulary.js";

/** A real row of the table, to break one thing at a time. */
function row(method: RestOperation["method"], path: string): RestOperation {
  const found = restOperations.find((operation) => operation.method === method && operation.path === path);
  if (!found) throw new Error(`no row ${method} ${path}`);
  return found;
}

const read = row("GET", "/wiki/{id}");
const create = row("POST", "/wiki");
const list = row("GET", "/wiki/list");
const blogCreate = row("POST", "/blog");

/** The row with one parameter replaced (or removed, when `changes` is null). */
function withParam(operation: RestOperation, name: string, changes: Partial<RestParam> | null): RestOperation {
  const params = operation.params.flatMap((param) => (param.name !== name ? [param] : changes ? [{ ...param, ...changes }] : []));
  return { ...operation, params };
}

/** The check's message for these rows ("" when it passes). */
function problemsOf(...operations: RestOperation[]): string {
  try {
    checkFacadeTable(schema, operations);
    return "";
  } catch (error) {
    return (error as Error).message;
  }
}

describe("the facade's start-up check", () => {
  it("passes the real table", () => {
    expect(problemsOf(...restOperations)).toBe("");
  });

  it("the router refuses to start with a broken row, naming the row and the problem", () => {
    const broken = withParam(read, "version_id", { variable: "versionid" });
    const start = () => restFacade({ schema, operations: [...restOperations, broken], core: {} as never, config: loadConfig(), log: () => {}, bodyLimit: 1024 });
    expect(start).toThrow(/facade row GET \/wiki\/\{id\} \(v1\.0\): parameter "version_id" feeds \$versionid, but WikiPageRead does not declare \$versionid \(it declares \$id, \$versionId\)/);
  });

  describe("a parameter's variable", () => {
    it("must be declared by the document", () => {
      expect(problemsOf(withParam(read, "id", { variable: "idd" }))).toMatch(/GET \/wiki\/\{id\}.*parameter "id" feeds \$idd, but WikiPageRead does not declare \$idd/);
    });

    it("must name a field of the input object", () => {
      expect(problemsOf(withParam(create, "scope_id", { variable: "input.scopeid" }))).toMatch(
        /POST \/wiki .*parameter "scope_id" feeds \$input\.scopeid, but CreateWikiPageInput has no field "scopeid" \(fields: .*scopeId/,
      );
      expect(problemsOf(withParam(read, "version_id", { variable: "versionId.number" }))).toMatch(
        /parameter "version_id" feeds \$versionId\.number, but \$versionId is ID, which has no fields/,
      );
      expect(problemsOf(withParam(create, "scope_id", { variable: "inputs.scopeId" }))).toMatch(/parameter "scope_id" feeds \$inputs\.scopeId, but WikiPageCreate does not declare \$inputs/);
    });

    it.each<[string, RestOperation, string, Partial<RestParam>, string]>([
      ["integer → String", create, "title", { type: "integer" }, 'parameter "title" \\(integer\\) feeds \\$input\\.title of type String!, which it cannot fill: it takes Int, ID or an enum of numbers'],
      ["string → Int", create, "scope_id", { type: "string" }, 'parameter "scope_id" \\(string\\) feeds \\$input\\.scopeId of type Int, which it cannot fill: it takes String, ID or an enum of named numbers'],
      ["boolean → Int", create, "state", { type: "boolean", default: false }, 'parameter "state" \\(boolean\\) feeds \\$input\\.state of type Int, .* it takes Boolean'],
      ["timestamp → String", create, "pagename", { format: "timestamp" }, 'parameter "pagename" \\(string, format timestamp\\) feeds \\$input\\.pagename of type String, .* it takes DateTime'],
      ["string → DateTime", create, "created", { format: undefined, default: undefined }, 'parameter "created" \\(string\\) feeds \\$input\\.created of type DateTime, .* it takes String, ID or an enum of named numbers'],
      ["string → [String]", blogCreate, "tags", { format: undefined }, 'parameter "tags" \\(string\\) feeds \\$input\\.tags of type \\[String!\\], .* it takes String, ID or an enum of named numbers'],
      ["list → String", create, "pagename", { format: "list" }, 'parameter "pagename" \\(string, format list\\) feeds \\$input\\.pagename of type String, .* it takes \\[String\\]'],
      ["array → JSON", create, "params", { format: undefined }, 'parameter "params" \\(array\\) feeds \\$input\\.params of type JSON, .* it takes a list'],
      ["map → [String]", blogCreate, "tags", { type: "array", format: "map" }, 'parameter "tags" \\(array, format map\\) feeds \\$input\\.tags of type \\[String!\\], .* it takes JSON'],
      ["string → an enum of numbers", create, "access", { type: "string", default: undefined }, 'parameter "access" \\(string\\) feeds \\$input\\.access of type WikiAccess, .* it takes String, ID or an enum of named numbers'],
      ["file → String", create, "pagetext", { type: "file" }, 'parameter "pagetext" \\(file\\) feeds \\$input\\.pagetext of type String!, .* it takes File'],
    ])("must be of a type the REST type can fill: %s", (_case, operation, name, changes, message) => {
      expect(problemsOf(withParam(operation, name, changes))).toMatch(new RegExp(message));
    });

    it("must be nullable, or have a default, when an optional parameter with no default feeds it", () => {
      expect(problemsOf(withParam(create, "title", { required: false }))).toMatch(
        /POST \/wiki .*parameter "title" is optional with no default, but feeds the non-null \$input\.title \(String!\), which has no default/,
      );
      // A default the facade sends always fills it; "now" is the service's, so it does not.
      expect(problemsOf(withParam(create, "title", { required: false, default: "Untitled" }))).toBe("");
      expect(problemsOf(withParam(read, "id", { required: false, default: undefined }))).toMatch(/parameter "id" is optional with no default, but feeds the non-null \$id \(ID!\)/);
      expect(problemsOf(withParam(read, "id", { required: false, default: 0 }))).toBe("");
    });
  });

  describe("the document's required variables", () => {
    it("are each fed by a parameter", () => {
      const noTitle = withParam(create, "title", null);
      expect(problemsOf(noTitle)).toMatch(/POST \/wiki .*\$input\.title \(String!\) is required by CreateWikiPageInput, but no parameter feeds it/);
      const noId = { ...withParam(read, "id", null), path: "/wiki/page" };
      expect(problemsOf(noId)).toMatch(/GET \/wiki\/page .*\$id \(ID!\) is required by WikiPageRead, but no parameter feeds it/);
    });

    it("are not left to optional parameters without defaults: an input object is always sent, but its required fields must be fed", () => {
      const onlyOptional = { ...create, params: create.params.filter((param) => !param.required && param.default === undefined) };
      const problems = problemsOf(onlyOptional);
      expect(problems).not.toMatch(/\$input \(CreateWikiPageInput!\)/);
      expect(problems).toMatch(/\$input\.title \(String!\) is required by CreateWikiPageInput, but no parameter feeds it/);
    });
  });

  describe("path placeholders", () => {
    it("must each be a parameter of the row", () => {
      expect(problemsOf({ ...read, path: "/wiki/{page}" })).toMatch(
        /GET \/wiki\/\{page\} .*the path placeholder \{page\} is not a parameter of the row; if the API document names that parameter differently, give it placeholder: "page"/,
      );
    });

    it("may feed a parameter of another name through an explicit placeholder", () => {
      // The forum's GET /forum/{thread} documents its identifier as `id`.
      expect(problemsOf({ ...withParam(read, "id", { placeholder: "page" }), path: "/wiki/{page}" })).toBe("");
    });

    it("named by a parameter must be in the path", () => {
      const message = problemsOf(withParam(read, "id", { placeholder: "thread" }));
      expect(message).toMatch(/parameter "id" reads the placeholder \{thread\}, which the path does not have/);
      expect(message).toMatch(/the path placeholder \{id\} is not a parameter of the row/);
    });

    it("are read by one parameter only", () => {
      const twice = { ...read, path: "/wiki/{page}", params: read.params.map((param) => ({ ...param, placeholder: "page" })) };
      expect(problemsOf(twice)).toMatch(/parameters "id" and "version_id" all read \{page\}/);
    });
  });

  describe("the rest of a row", () => {
    it("names a registered response kind", () => {
      expect(problemsOf({ ...read, response: { kind: "download" } as never })).toMatch(
        /GET \/wiki\/\{id\} .*response kind "download" is not registered \(registered: record, list, empty, array\)/,
      );
    });

    it("names a root field of its document as resultField", () => {
      expect(problemsOf({ ...read, resultField: "wikipage" })).toMatch(/resultField "wikipage" is not a root field of WikiPageRead \(it selects wikiPage\)/);
    });

    it("has a document that is valid against the schema and holds one operation", () => {
      const invalid = parse("query WikiRead($id: ID!) { wikiPage(id: $id) { id nope } }");
      expect(problemsOf({ ...read, document: invalid, params: [read.params[0]!] })).toMatch(/GET \/wiki\/\{id\} .*document: Cannot query field "nope" on type "WikiPage"/);
      expect(problemsOf({ ...read, document: concatAST([read.document, row("GET", "/blog/{id}").document]) })).toMatch(/document must hold exactly one operation, not 2/);
    });

    it("documents defaults of the parameter's type, and formats for the type they refine", () => {
      expect(problemsOf(withParam(list, "limit", { default: "twenty" }))).toMatch(/parameter "limit" has the default "twenty", which must be an integer/);
      expect(problemsOf(withParam(list, "sort", { default: "now" }))).toMatch(/parameter "sort" has the default "now", which is for timestamps/);
      expect(problemsOf(withParam(create, "scope_id", { format: "list" }))).toMatch(/parameter "scope_id" has format "list", which is for string parameters/);
      expect(problemsOf(withParam(create, "pagename", { format: "map" }))).toMatch(/parameter "pagename" has format "map", which is for array parameters/);
    });

    it("lists each parameter once, and feeds each variable from one parameter", () => {
      const title = create.params.find((param) => param.name === "title")!;
      expect(problemsOf({ ...create, params: [...create.params, title] })).toMatch(/parameter "title" is listed twice/);
      expect(problemsOf({ ...create, params: [...create.params, { ...title, name: "heading" }] })).toMatch(/parameter "heading" and parameter "title" both feed \$input\.title/);
    });

    it("lets a string parameter fill an enum of named numbers (a group's join_policy), and a fields parameter name only keys the document selects", () => {
      const groupCreate = row("POST", "/groups");
      const groupRead = row("GET", "/groups/{id}");
      expect(problemsOf(groupCreate, groupRead)).toBe("");
      expect(problemsOf(withParam(groupRead, "fields", { default: "gidNumber,colour" }))).toMatch(/parameter "fields" names "colour", which the document does not select/);
      expect(problemsOf(withParam(groupRead, "fields", { alwaysKept: ["gid"] }))).toMatch(/parameter "fields" names "gid", which the document does not select/);
    });

    it("reports every problem of every row at once", () => {
      const message = problemsOf(withParam(read, "id", { variable: "idd" }), { ...list, resultField: "pages" });
      expect(message).toMatch(/^The facade table is inconsistent \(3 problems\):/);
      expect(message).toContain("facade row GET /wiki/{id} (v1.0)");
      expect(message).toContain("facade row GET /wiki/list (v1.0)");
    });
  });
});
