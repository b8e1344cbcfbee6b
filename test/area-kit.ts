import type { TestServer } from "./server.js";
import type { ListContract, PublishingState } from "./areas.js";
import type { AnyArea } from "../src/common/area-declaration.js";
import { areaRows } from "../rest-facade/area-rows.js";

/**
 * The helpers the areas' `src/<area>/testing.ts` files use at run time. Apart from test/areas.ts (which imports
 * every testing file), so that no testing file imports the module that imports it; this module takes only
 * types from there, and test/areas.ts imports nothing from here.
 */

/**
 * A fixture's create through the GraphQL mutation `field` (records written only through GraphQL: citations,
 * forum sections and categories): the new record's id, or the `AreaTesting.create` error, `… failed (<HTTP
 * status>): <errors>`, carrying the errors' codes (a refusal answers 200 with FORBIDDEN).
 */
export async function createThroughGraphql(server: TestServer, token: string, field: string, inputType: string, input: Record<string, unknown>): Promise<number> {
  const response = await fetch(`${server.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query: `mutation($input: ${inputType}!) { created: ${field}(input: $input) { id } }`, variables: { input } }),
  });
  const body = (await response.json()) as { data?: { created: { id: string } | null }; errors?: unknown[] };
  if (!body.data?.created) throw new Error(`${field} failed (${response.status}): ${JSON.stringify(body.errors)}`);
  return Number(body.data.created.id);
}

/**
 * The states of records with a publishing window (`publish_up` until `publish_down`, as the blog and
 * announcements keep it): published ones are shown inside their window only.
 */
export const PUBLISHING_WINDOW_STATES: PublishingState[] = [
  { name: "published", published: true, values: { state: 1 } },
  { name: "published, ends later", published: true, values: { state: 1, publish_up: "2000-01-01 00:00:00", publish_down: "2999-01-01 00:00:00" } },
  { name: "scheduled", published: false, values: { state: 1, publish_up: "2999-01-01 00:00:00" } },
  { name: "ended", published: false, values: { state: 1, publish_up: "2000-01-01 00:00:00", publish_down: "2001-01-01 00:00:00" } },
  { name: "unpublished", published: false, values: { state: 0 } },
];

/** The named fields of a record (for `update.body`). */
export const pick = (record: Record<string, unknown>, names: string[]) =>
  Object.fromEntries(Object.entries(record).filter(([name]) => names.includes(name)));

/**
 * An area's contract for the shared suites (`ListContract`, test/areas.ts) read from its declaration
 * (src/common/area.ts): its list row (path, answer key) and list field, its list spec, its read,
 * PUT and DELETE rows (a PUT sends back the record's values of the parameters the row takes but its creator,
 * so the record stays as it was) and its access levels. `specific` gives what only the tests know (the
 * publishing states to seed, the field search text is planted in, the table the database-level checks read,
 * which the Prisma data model available here does not name), what the oracles expect, written from the
 * contract rather than read from the code they check (who writes, the 404 message), and overrides the rest
 * where the area's rows differ from the suites' assumptions (`list` is merged; a key set to undefined drops a
 * derived row).
 */
export function contractOf(
  area: AnyArea,
  specific: Omit<Partial<ListContract>, "list"> & Pick<ListContract, "states" | "table" | "writers" | "notFound"> & { list?: Partial<ListContract["list"]> },
): ListContract {
  const rows = areaRows(area);
  const row = (method: string, path: string | undefined) => (path ? rows.find((candidate) => candidate.method === method && candidate.path === path) : undefined);
  const listRow = [area.rest?.list ?? []].flat()[0];
  const list = listRow && row(listRow.method ?? "GET", listRow.path);
  if (!list) throw new Error(`area ${area.area}: no REST list row to test the contract through`);
  const put = row("PUT", area.rest?.replace?.path);
  const placeholders = (path: string) => new Set([...path.matchAll(/\{(\w+)\}/g)].map((found) => found[1]!));
  // The creator is who made the record, not one of its values: left out, it stays as it was.
  const sentBack = put
    ? put.params.filter((param) => !placeholders(put.path).has(param.placeholder ?? param.name) && param.variable !== "input.createdBy").map((param) => param.name)
    : [];
  const derived: ListContract = {
    table: specific.table,
    list: { path: list.path, ...(list.method === "POST" ? { method: "POST" as const } : {}), graphql: area.plural, ...(list.response.kind === "list" && list.response.key ? { key: list.response.key } : {}) },
    spec: area.listSpec,
    ...(area.rest?.read ? { read: { path: area.rest.read.path } } : {}),
    ...(put ? { update: { method: "PUT" as const, path: put.path, body: (record: Record<string, unknown>) => pick(record, sentBack) } } : {}),
    ...(area.rest?.remove ? { remove: { path: area.rest.remove.path } } : {}),
    ...(area.records.access ? { access: area.records.access } : {}),
    writers: specific.writers,
    notFound: specific.notFound,
    states: specific.states,
  };
  return { ...derived, ...specific, list: { ...derived.list, ...specific.list } };
}
