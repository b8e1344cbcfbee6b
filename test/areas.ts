import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { AccessLevelName, AccessLevels } from "../src/common/access.js";
import type { AnyFields } from "../src/common/fields.js";
import type { ListSpec } from "../src/common/list-spec.js";
import type { Prisma } from "../src/generated/prisma/client.js";
import type { TestServer } from "./server.js";
import type { RestOperation } from "../rest-facade/types.js";
import { restOperations } from "../rest-facade/table.js";

// What the areas' testing.ts files use at run time lives in test/area-kit.ts, which imports none of them:
// they imported it from here, a cycle through this file's top-level await that vitest's module runner
// sometimes answered with a testing module not yet evaluated (testingOf: "reading 'area'" of undefined).
// They import it from there; it takes only types from here, so neither file imports the other both ways.

/** A state the shared suites create records in (`ListContract.states`). */
export interface PublishingState {
  name: string;
  /** Shown to callers beyond the creator and administrators (at an access level they qualify for). */
  published: boolean;
  values: Record<string, unknown>;
  /**
   * The list filters (REST parameter names; GraphQL takes them as arguments named alike) under which records
   * in this state are listed, where the list's defaults leave them out (a disabled plugin record: `enabled=0`).
   */
  listedWith?: Record<string, string | number>;
}

/** The API document's parameter list of one operation: name → [type, required, default?]. */
export type Documented = Record<string, [type: string, required: boolean, fallback?: string | number]>;

/**
 * What an area tells the shared tests about itself, in `src/<area>/testing.ts` (found by name, so a new
 * area edits no shared test file):
 * - `documented`: the API document's parameter lists, keyed `METHOD /path VERSION`, transcribed by hand
 *   from shared/spec (rest-facade/table.test.ts holds the facade table to them);
 * - `create`: a fixture that makes a record through the area's own API and returns its id (records the
 *   shared tests need first, like a category before a forum post, are made here too);
 * - `contract`: the traits the contract suite (test/contract.test.ts) checks: paging, sort, search,
 *   scope, access levels, who writes.
 */
export interface AreaTesting {
  /** The facade area (first path segment). */
  area: string;
  documented: Record<string, Documented>;
  /**
   * The area's field table (src/common/fields.ts), when its facade rows take their write parameters from
   * it: rest-facade/table.test.ts holds it to `documented`.
   */
  fields?: AnyFields;
  /**
   * Makes a record as `token` with these REST field values over plausible required ones (state 1 unless
   * given) and returns its id; when the API refuses, it throws `… failed (<status>): <body>`.
   */
  create(server: TestServer, token: string, values?: Record<string, unknown>): Promise<number>;
  contract?: ListContract;
  /**
   * The row's path ready to call, for rows whose placeholders are more than a record's `{id}` (a group
   * plugin row's `{group}` and `{record_id}`): it makes what the path names (a group, a record in it) as
   * `token`. Absent: `{id}` is a record made by `create`.
   */
  pathFor?(server: TestServer, token: string, operation: RestOperation): Promise<string>;
}

/** The shared suites an area can declare it does not fit, with the reason (`ListContract.skips`). */
export type SharedSuite =
  | "contract"
  | "contract records"
  | "contract partial update"
  | "contract access levels"
  | "totals"
  | "authorization matrix"
  | "hot paths"
  | "plans";

export interface ListContract {
  /**
   * The list row (`GET /wiki/list`) and its JSON key — absent: the row answers a bare array with the total
   * in `X-Total-Count` (response kind `array`); the GraphQL list field.
   */
  list: {
    path: string;
    /** The row's method: GET, or POST where the API document says so (`POST /courses/list`). */
    method?: "GET" | "POST";
    key?: string;
    graphql: string;
    /** Sent with every list request of the shared suites (`listRequest`; groups: `fields`, so every key is answered; forum categories: the required `section`). */
    query?: Record<string, string>;
    /** The REST key of a record's id (default `id`; groups: `gidNumber`). */
    idKey?: string;
    /** Sort names whose values the REST record keeps under another key (groups: `id` → `gidNumber`). */
    sortKeys?: Record<string, string>;
    /**
     * Sort columns no field answers, as a record's value worked out from its GraphQL fields (announcements'
     * `rank`, stored as sticky × 100,000 + priority), for the sort checks.
     */
    sortValues?: Record<string, (item: Record<string, unknown>) => unknown>;
    /**
     * A list whose path names its scope (`/groups/{group}/announcements/list`) instead of taking
     * `scope`/`scope_id`: the suites fill the placeholder from a scope of their own (`PathScope.make`), and the
     * GraphQL twins take it as the argument of the same name.
     */
    scopeFromPath?: PathScope;
  };
  /**
   * Shared suites whose assumptions the area's records do not meet, each with the reason (groups: no
   * publishing state, no creator rule, a REST record keyed by gidNumber); the area's own tests cover those rules.
   */
  skips?: Partial<Record<SharedSuite, string>>;
  /**
   * Records that are scopes themselves (`isScope`, src/common/records.ts), private to their members: how a user comes to see a
   * record's private level and stops (a hidden group's membership), for test/totals.test.ts.
   */
  privateTo?: {
    grant(server: TestServer, id: number, userId: number): Promise<void>;
    revoke(server: TestServer, id: number, userId: number): Promise<void>;
  };
  spec: ListSpec;
  /** The REST field the search text is planted in by `create`. */
  searchField?: string;
  /**
   * Another field `search` looks in, by its GraphQL update input name (the wiki's `pagetext`, whose
   * lower-cased copy the database keeps): the totals tests change it and expect the search to follow.
   */
  searchAlso?: string;
  /** REST write rows ({id} in the path), when the area has them. */
  /**
   * The update row and the body that replaces a record with its current values (as the read row answers
   * them): PUT replaces, so a test that changes one field sends everything else back.
   */
  update?: { method: "PUT"; path: string; body(record: Record<string, unknown>): Record<string, unknown> };
  remove?: { path: string };
  read?: { path: string };
  /**
   * Records carry access levels in the REST field `access` (or the one the records declaration's `accessField`
   * names: groups' `discoverability`), and `state` 0/1 for unpublished/published.
   */
  access?: AccessLevels;
  /**
   * The publishing states a record can be in, as `create` values, and whether each counts as published
   * (the contract: unpublished records are the creator's and administrators' only). The authorization
   * matrix (test/authorization-matrix.test.ts) seeds a record in each; a publishing window adds states
   * such as "scheduled" or "ended" that are published in name but not shown.
   */
  states: PublishingState[];
  /** The table the records live in (database-level checks). */
  table: string;
  /**
   * Who may create records: any signed-in user (scoped areas), the scope's managers and administrators
   * (announcements: a member of the group may not, and a creator who is no longer a manager may change
   * nothing), or administrators only.
   */
  writers: "users" | "managers" | "administrators";
  /**
   * Creates by administrators only, where changes follow `writers` (courses: an administrator makes one, its
   * managers change it): the suites make records as an administrator, and no caller is their creator.
   */
  creates?: "administrators";
  /**
   * The GraphQL update input that puts a record at an access level, where the level is not itself an input
   * (courses: their `visibility` is kept from `state` and `access`). Absent: the level's own field.
   */
  levelInput?(level: AccessLevelName): Record<string, unknown>;
  /** The record's "not found" message for id N, as the read answers it. */
  notFound(id: number): string;
  /**
   * For the plan test (test/plans.test.ts), which derives the shapes from `spec`: the area filters its
   * service passes to pagedList (each needs an index), and, when the generic seed cannot fill the table
   * (a required reference to another table), an INSERT of `rows` records by `authors`, some in `groupId`.
   */
  plan?: {
    filters?: Record<string, string | number>[];
    seed?(rows: number, context: { authors: number[]; groupId: number }): Prisma.Sql;
  };
}

/**
 * Where the records of a list whose path names its scope live, for the shared suites
 * (`ListContract.list.scopeFromPath`). A scope is given to the suites' helpers as the path's placeholder
 * value, `{ group: "news1" }`: `scopedRequest` fills the path with it, `graphqlScope` passes it to the
 * twins, and the area's `create` takes it among its values.
 */
export interface PathScope {
  /** The placeholder the paths name the scope by, and the GraphQL twins' argument (`group`). */
  placeholder: string;
  /** The scope kind it stands for (`group`). */
  kind: string;
  /**
   * A fresh scope, made as `token`, who becomes its manager (the area's writer: an administrator, or a
   * user who is then the scope's manager): the placeholder's value and the scope id.
   */
  make(server: TestServer, token: string): Promise<{ value: string; scopeId: number }>;
  /** Makes `userId` a member of the scope (a manager when `manager`): the suites' member and manager callers. */
  addMember(server: TestServer, scopeId: number, userId: number, manager?: boolean): Promise<void>;
  /**
   * Statements a request spends resolving the path's scope before the area's own (the group's lookup,
   * groupIdFromPath): the hot-path counts add them.
   */
  statements: number;
  /** The GraphQL twins' root fields, each taking the placeholder as an argument (absent: the area has none). */
  graphql: { read?: string; update?: string; remove?: string };
}

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

/**
 * Every area's `src/<folder>/testing.ts`, in folder order, and any `src/<folder>/<name>.testing.ts` (rows a
 * folder serves beside its area's own: src/groups/plugins.testing.ts): each exports `testing`, or
 * `testings` when one file serves several facade areas (src/auth: `session` and `developer`).
 */
export const areaTestings: AreaTesting[] = (
  await Promise.all(
    fs
      .readdirSync(path.join(root, "src"), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .flatMap((entry) =>
        fs
          .readdirSync(path.join(root, "src", entry.name))
          .filter((file) => file === "testing.ts" || file.endsWith(".testing.ts"))
          .sort()
          .map((file) => path.join(root, "src", entry.name, file)),
      )
      .map(async (file) => {
        const declared = (await import(file)) as { testing?: AreaTesting; testings?: AreaTesting[] };
        return declared.testings ?? [declared.testing!];
      }),
  )
).flat();

export const testingOf = (area: string) => areaTestings.find((testing) => testing.area === area);

/** The declaration that documents a facade row (RestOperation.documentedIn, else its area). */
export const documentedIn = (operation: RestOperation) => operation.documentedIn ?? operation.area;

/** The areas that declare a contract and do not skip `suite`. */
export const contractAreas = (suite?: SharedSuite) =>
  areaTestings.filter((candidate): candidate is AreaTesting & { contract: ListContract } => Boolean(candidate.contract) && !(suite && candidate.contract!.skips?.[suite]));

/** A list answer's records and total, whichever way the row answers (a wrapper with `key`, or a bare array and X-Total-Count). */
export const listedRecords = (contract: ListContract, body: unknown): Record<string, unknown>[] =>
  (contract.list.key ? (body as Record<string, unknown>)[contract.list.key] : body) as Record<string, unknown>[];
export const listedTotal = (contract: ListContract, response: { body: unknown; headers: Headers }): number =>
  contract.list.key ? ((response.body as { total: number }).total) : Number(response.headers.get("X-Total-Count"));

/** A scope for a list request: `scope`/`scope_id` (or nothing) as query values, or the path's placeholder value (`{ group: "news1" }`). */
export type Where = Record<string, string | number>;

/**
 * A path and query for `where`: the placeholders the path names are filled from it (a list or row under
 * `scopeFromPath`), the rest go into the query.
 */
export function scopedRequest(template: string, where: Where): { path: string; query: Where } {
  let path = template;
  const query: Where = {};
  for (const [name, value] of Object.entries(where)) {
    if (path.includes(`{${name}}`)) path = path.replace(`{${name}}`, encodeURIComponent(String(value)));
    else query[name] = value;
  }
  return { path, query };
}

/** Whether any signed-in user makes the area's records (not only changes them: courses are made by administrators). */
export const usersCreate = (contract: ListContract) => contract.writers === "users" && contract.creates !== "administrators";

/** The list row's method, path and query for `where`, with what every list request of the suites sends (`list.query`: a required `section`, groups' `fields`). */
export const listRequest = (contract: ListContract, where: Where) => ({ method: contract.list.method ?? "GET", ...scopedRequest(contract.list.path, { ...contract.list.query, ...where }) });

/** A record row's path: `{id}` or `{record_id}` the record's id, other placeholders from `where` (a path scope). */
export const recordPath = (template: string, id: number | string, where: Where = {}) =>
  scopedRequest(template.replace(/\{(id|record_id)\}/, String(id)), where).path;

/**
 * The parameter a row path's record id is (what a 400 about it names): the row's parameter read from
 * `{id}` or `{record_id}` (a group plugin row's `record_id`, whichever placeholder its path names).
 */
export function recordIdName(template: string): string {
  const placeholder = template.includes("{record_id}") ? "record_id" : "id";
  const row = restOperations.find((operation) => operation.path === template);
  return row?.params.find((param) => (param.placeholder ?? param.name) === placeholder)?.name ?? placeholder;
}

/**
 * How a GraphQL list or record field of `contract` is told its scope: the variable declarations, the
 * arguments and the variables for `where` (`scope`/`scopeId`, the twin's placeholder argument, or none).
 */
export function graphqlScope(contract: ListContract, where: Where = {}) {
  const fromPath = contract.list.scopeFromPath;
  if (fromPath) {
    const name = fromPath.placeholder;
    return { declarations: `$${name}: String!`, args: `${name}: $${name}`, variables: { [name]: where[name] } as Record<string, unknown> };
  }
  if (!contract.spec.scoped) return { declarations: "", args: "", variables: {} as Record<string, unknown> };
  const variables: Record<string, unknown> = where.scope === undefined ? {} : { scope: where.scope, scopeId: where.scope_id };
  return { declarations: "$scope: String, $scopeId: Int", args: "scope: $scope, scopeId: $scopeId", variables };
}

/** The REST list row of `contract`. */
export const listRow = (contract: ListContract) => restOperations.find((operation) => operation.method === (contract.list.method ?? "GET") && operation.path === contract.list.path)!;

/**
 * Whether the REST list row takes `parameter` (a group plugin's list takes `limit` and `start` only, as
 * the API document gives it: its sort and search are the GraphQL twin's).
 */
export const listTakes = (contract: ListContract, parameter: string) => listRow(contract).params.some((param) => param.name === parameter);

/**
 * A list of `where` through GraphQL, as the REST list answers it (`{ ids, items, total }` or the errors):
 * `args` in GraphQL names (`sortDir`), `selection` the items' fields.
 */
export async function graphqlList(server: TestServer, contract: ListContract, where: Where, args: Record<string, unknown>, token?: string, selection = "id") {
  const scope = graphqlScope(contract, where);
  const declared = Object.keys(args).map((name) => `$${name}: ${name === "search" || name === "sort" || name === "sortDir" ? "String" : "Int"}`);
  const declarations = [scope.declarations, ...declared].filter(Boolean).join(", ");
  const call = [scope.args, ...Object.keys(args).map((name) => `${name}: $${name}`)].filter(Boolean).join(", ");
  const query = `query${declarations ? `(${declarations})` : ""} { list: ${contract.list.graphql}${call ? `(${call})` : ""} { items { ${selection} } total } }`;
  const response = await fetch(`${server.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query, variables: { ...scope.variables, ...args } }),
  });
  const body = (await response.json()) as { data?: { list: { items: Record<string, unknown>[]; total: number } }; errors?: unknown[] };
  if (body.errors || !body.data) return { errors: body.errors ?? [body], ids: [] as number[], items: [] as Record<string, unknown>[], total: NaN };
  return { errors: undefined, ids: body.data.list.items.map((item) => Number(item.id)), items: body.data.list.items, total: body.data.list.total };
}
