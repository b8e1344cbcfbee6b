import type { TestServer } from "./server.js";

/**
 * The helpers the areas' `src/<area>/testing.ts` files use at run time. Apart from test/areas.ts (which imports
 * every testing file, and re-exports these), so that no testing file imports the module that imports it.
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
