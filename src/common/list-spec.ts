import { badInput } from "./errors.js";
import type { RequestContext } from "./context.js";
import { describeScopeKinds } from "./scope-kinds.js";
import type { RecordsDeclaration } from "./records.js";

/** Largest page any list returns; `limit=0` asks for exactly this. */
export const MAX_PAGE_SIZE = 100;

/** The API document's default page size for every list but search. */
export const DEFAULT_PAGE_SIZE = 25;

export interface PageArgs {
  limit?: number | null;
  start?: number | null;
}

/** Turns the contract's limit/start into Prisma take/skip: 0 means the maximum, above the maximum is clamped. */
export function pageWindow({ limit, start }: PageArgs, defaultLimit = DEFAULT_PAGE_SIZE): { take: number; skip: number } {
  const requested = limit ?? defaultLimit;
  const offset = start ?? 0;
  if (!Number.isInteger(requested) || requested < 0) throw badInput("limit", "must be a whole number of 0 or more");
  if (!Number.isInteger(offset) || offset < 0) throw badInput("start", "must be a whole number of 0 or more");
  return { take: requested === 0 ? MAX_PAGE_SIZE : Math.min(requested, MAX_PAGE_SIZE), skip: offset };
}

export type SortDirection = "asc" | "desc";

/**
 * Checks a sort value against the area's whitelist (REST column name → Prisma field) and normalises the
 * direction. The same names work on both surfaces, e.g. `sort: "publish_up"`.
 */
export function sortOrder<Field extends string>(
  columns: Readonly<Record<string, Field>>,
  sort: string | null | undefined,
  direction: string | null | undefined,
  fallback: { sort: string; direction: SortDirection },
): { field: Field; direction: SortDirection } {
  const name = sort || fallback.sort;
  const field = Object.hasOwn(columns, name) ? columns[name] : undefined;
  if (!field) throw badInput("sort", `must be one of ${Object.keys(columns).join(", ")}`);
  const dir = (direction || fallback.direction).toLowerCase();
  if (dir !== "asc" && dir !== "desc") throw badInput("sortDir", "must be asc or desc");
  return { field, direction: dir };
}

/**
 * How an area's list pages: declared once by the area and used by its service, its GraphQL arguments
 * (src/graphql/list.ts) and the descriptions of its facade rows, so defaults and whitelists are never
 * restated. Every sort column needs an index led by the list's filter (docs/adding-an-area.md, "Indexes";
 * test/plans.test.ts fails without one).
 */
export interface ListSpecInput {
  /** What is listed and who may see it (src/common/records.ts). */
  records: RecordsDeclaration;
  /** REST sort names → Prisma fields (the whitelist). */
  sortColumns: Readonly<Record<string, string>>;
  defaults: { sort: string; sortDir: SortDirection; limit: number };
  /**
   * Where `search` looks (for descriptions) and the fields it matches case-insensitively (ILIKE, each
   * with a trigram index); `lowerCaseFields` hold text the database keeps lower-cased for search, matched
   * with LIKE against the lower-cased text. Absent: the list has no search.
   */
  search?: { in: string; fields: string[]; lowerCaseFields?: string[] };
}

export interface ListSpec extends ListSpecInput {
  /** Lists of scoped records filter by `scope`/`scopeId`, "site"/0 when absent (from the records). */
  scoped: boolean;
}

export function listSpec(spec: ListSpecInput): ListSpec {
  if (!Object.hasOwn(spec.sortColumns, spec.defaults.sort)) throw new Error(`default sort ${spec.defaults.sort} is not in the whitelist`);
  return { ...spec, scoped: spec.records.scoped };
}

/** How `limit` and `start` read wherever records are paged (lists, and nested lists such as revisions). */
export const describePage = (defaultLimit = DEFAULT_PAGE_SIZE) => ({
  limit: `Number of results (default ${defaultLimit}; 0: the maximum, ${MAX_PAGE_SIZE}; larger values become ${MAX_PAGE_SIZE}).`,
  start: "Offset of the first result.",
});

/** The scope a scoped list shows when none is given. */
export const DEFAULT_SCOPE = { scope: "site", scopeId: 0 } as const;

/** The scope a scoped list lists: the one asked, else the site. */
export const listedScope = (args: Pick<ListArgs, "scope" | "scopeId">): { scope: string; scopeId: number } => ({
  scope: args.scope ?? DEFAULT_SCOPE.scope,
  scopeId: args.scopeId ?? DEFAULT_SCOPE.scopeId,
});

/** The descriptions every surface shows for a list's arguments. */
export function describeList(spec: ListSpec) {
  return {
    ...describePage(spec.defaults.limit),
    search: spec.search ? `Word or phrase in the ${spec.search.in} (case-insensitive, taken literally).` : undefined,
    sort: `Sort column: ${Object.keys(spec.sortColumns).join(", ")} (default ${spec.defaults.sort}).`,
    sortDir: `Sort direction: asc or desc (default ${spec.defaults.sortDir}).`,
    scope: `${describeScopeKinds()} (default "${DEFAULT_SCOPE.scope}").`,
    scopeId: `Scope object ID (default ${DEFAULT_SCOPE.scopeId}).`,
  };
}

export interface ListArgs extends PageArgs {
  search?: string | null;
  scope?: string | null;
  scopeId?: number | null;
  sort?: string | null;
  sortDir?: string | null;
}

/**
 * A page of records and, only when asked for, the number of all records that match. Both are
 * evaluated lazily and at most once: GraphQL resolves `items` and `total` only when selected.
 */
export interface Page<Item> {
  items(): Promise<Item[]>;
  total(): Promise<number>;
}

/**
 * The caller a statement is written for (a request context; the plan test passes bare viewers), and the
 * transaction they ask in, if any (a keyed operation's: src/execution/conditions.ts).
 */
export type Caller = Pick<RequestContext, "db" | "viewer" | "tx">;
