import { z } from "zod";
import { Prisma, type PluginRecord } from "../generated/prisma/client.js";
import type { RequestContext } from "../common/context.js";
import { badInput, notFound } from "../common/errors.js";
import { listSpec, pagedList, type ListArgs } from "../common/paging.js";
import { createdRecord, findVisible, records, type Selection } from "../common/records.js";
import { domainEvents } from "../common/events.js";
import { changeRecord, createRecord, deleteRecord, fieldsChange, insertStatement, writtenRecords } from "../common/write-path.js";
import { requireAdministrator } from "../common/scopes.js";
import { parseInput, type RawInput } from "../common/validation.js";
import { columnValues, fieldTable } from "../common/fields.js";
import { writeFailure } from "../db/errors.js";
import { illFormedTextPath, jsonDepth, jsonLength } from "../common/json-bounds.js";

/**
 * Plugin records (API document, "Plugin record"): which plugins exist, in which folder (plugin group),
 * enabled or not. They are for administrators only — reads and lists too (docs/decisions.md, "Plugins");
 * the code a record stands for is found by folder and element (src/plugins/registry.ts).
 */
export const PLUGIN_RECORDS = records({ model: "PluginRecord", scoped: false, published: { field: "enabled", value: 1 }, administratorsOnly: true });

/** GET /plugins/list and `pluginRecords`: sort whitelist, defaults and search. */
export const PLUGIN_LIST = listSpec({
  records: PLUGIN_RECORDS,
  sortColumns: { id: "id", name: "name", element: "element", folder: "folder", created: "created", modified: "modified" },
  defaults: { sort: "created", sortDir: "desc", limit: 25 },
  search: { in: "name or element", fields: ["name", "element"] },
});

/** The original's view levels a plugin record carries (`access`). */
export const PLUGIN_ACCESS_VALUES = [1, 2, 3] as const;
const ACCESS_DESCRIPTION = "1 public, 2 registered, 3 special.";

/** The list's filters and their documented defaults (enabled 1, access 1, any folder). */
export const PLUGIN_FILTERS = {
  folder: { description: "Only records of this folder (plugin group); absent: every folder." },
  enabled: { default: 1, description: "1 enabled records (default), 0 disabled ones." },
  access: { default: 1, description: `Only records of this access level (default 1): ${ACCESS_DESCRIPTION}` },
} as const;

type Query = { select?: Prisma.PluginRecordSelect };

/** A folder or element: any text but a dot, which separates the group from the event in `group.event`. */
const word = z
  .string()
  .trim()
  .min(1, "must not be empty")
  .max(100)
  .regex(/^[^.]*$/, "must not contain a dot (group.event separates by one)");
const enabledRule = z.union([z.literal(0), z.literal(1)], "must be 0 (disabled) or 1 (enabled)");
const accessRule = z.union([z.literal(1), z.literal(2), z.literal(3)], `must be one of ${ACCESS_DESCRIPTION}`);

/**
 * `params`: JSON text (the API document: "JSON encoded list of params"), an object or a list, bounded
 * like the wiki's page options; stored as written, normalised.
 */
const paramsRule = z
  .string()
  .max(16_384, "must not be larger than 16 KB")
  .transform((text, context) => {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      context.addIssue({ code: "custom", message: "must be JSON (an object or a list)" });
      return z.NEVER;
    }
    if (typeof value !== "object" || value === null) context.addIssue({ code: "custom", message: "must be JSON (an object or a list)" });
    else if (jsonDepth(value, 8) > 8) context.addIssue({ code: "custom", message: "must not be nested more than 8 levels deep" });
    else if (jsonLength(value, 16_384) > 16_384) context.addIssue({ code: "custom", message: "must not be larger than 16 KB as JSON" });
    else if (illFormedTextPath(value) !== null) context.addIssue({ code: "custom", message: "must be well-formed Unicode" });
    else return JSON.stringify(value);
    return z.NEVER;
  });

/** The plugin records' field table (src/common/fields.ts). */
export const PLUGIN_FIELDS = fieldTable({
  name: { type: "String", rule: z.string().trim().min(1, "must not be empty").max(255), required: "create", description: "Name shown to administrators." },
  element: { type: "String", rule: word, required: "create", description: "The plugin's name within its folder: with folder, what finds its code." },
  folder: { type: "String", rule: word, required: "create", description: "The plugin group (groups, content, …)." },
  enabled: { type: "Int", rule: enabledRule, default: 0, description: "1 enabled (its listeners run, its events fire), 0 disabled (default)." },
  access: { type: "Int", rule: accessRule, default: 1, description: `Access level: ${ACCESS_DESCRIPTION} Default 1.`, rest: { privacy: true } },
  params: { type: "String", rule: paramsRule, description: "The plugin's options as JSON text (an object or a list); default {}." },
});

export type CreatePluginRecord = RawInput<typeof PLUGIN_FIELDS.create>;
export type UpdatePluginRecord = RawInput<typeof PLUGIN_FIELDS.update>;

/** Plugin records are for administrators: 401 without a user, 403 for anyone else (in the service, for REST and GraphQL alike). */
const REFUSED = "Only administrators can manage plugins.";

/**
 * The plugin records' domain events (docs/events.md). Their audience is `managers`: plugin records are read
 * by administrators only, and a site record has no other managers, so no subscriber but them learns of them.
 */
export const PLUGIN_EVENTS = domainEvents("plugins", {
  pluginCreated: { description: "A plugin record was created.", audience: "managers" },
  pluginUpdated: { description: "A plugin record's fields changed (enabled, disabled, …); `changed` names them.", audience: "managers" },
  pluginDeleted: { description: "A plugin record was deleted.", audience: "managers" },
});

export const PLUGIN_WRITES = writtenRecords({
  area: "plugins",
  changedSubscription: "pluginRecordChanged",
  records: PLUGIN_RECORDS,
  names: ["name", "folder", "element"],
  notFound: (id) => `Plugin ${id} not found.`,
  forbidden: REFUSED,
});

/** One record per folder and element (its code is found by them): a second is 409 naming `element`. */
const taken = writeFailure({ conflict: { parameter: "element", message: "A plugin with this folder and element exists already.", column: "element" } });

export interface PluginListArgs extends ListArgs {
  folder?: string | null;
  enabled?: number | null;
  access?: number | null;
}

/** The list's equality filters, checked (400 naming the bad one). */
function listFilters(args: PluginListArgs): Record<string, string | number> {
  const filters: Record<string, string | number> = {};
  if (args.folder != null && args.folder !== "") filters.folder = parseInput(z.object({ folder: word }), { folder: args.folder }).folder;
  const enabled = args.enabled ?? PLUGIN_FILTERS.enabled.default;
  if (!enabledRule.safeParse(enabled).success) throw badInput("enabled", "must be 0 (disabled) or 1 (enabled)");
  filters.enabled = enabled;
  const access = args.access ?? PLUGIN_FILTERS.access.default;
  if (!accessRule.safeParse(access).success) throw badInput("access", `must be one of ${ACCESS_DESCRIPTION}`);
  filters.access = access;
  return filters;
}

export function listPluginRecords(ctx: RequestContext, args: PluginListArgs, query: Query = {}) {
  requireAdministrator(ctx, REFUSED);
  return pagedList<PluginRecord>(PLUGIN_LIST, ctx, args, query as Selection, listFilters(args));
}

export async function getPluginRecord(ctx: RequestContext, id: number, query: Query = {}) {
  requireAdministrator(ctx, REFUSED);
  const record = await findVisible<PluginRecord>(ctx, PLUGIN_RECORDS, id, query as Selection);
  if (!record) throw notFound(`Plugin ${id} not found.`);
  return record;
}

export async function createPluginRecord(ctx: RequestContext, input: CreatePluginRecord, query: Query = {}) {
  requireAdministrator(ctx, REFUSED);
  const data = parseInput(PLUGIN_FIELDS.create, input);
  const record = await createRecord<PluginRecord>(ctx, PLUGIN_WRITES, {
    event: PLUGIN_EVENTS.pluginCreated,
    answer: { query: query as Selection },
    inserted: Prisma.sql`created AS (${insertStatement(ctx, PLUGIN_RECORDS, columnValues(PLUGIN_FIELDS, data, "create"))})`,
  }).catch(taken);
  return createdRecord<PluginRecord>(ctx, PLUGIN_RECORDS, record!, query as Selection);
}

/** Changes the given fields only (REST PUT sends the documented defaults of what it leaves out). */
export async function updatePluginRecord(ctx: RequestContext, id: number, input: UpdatePluginRecord, query: Query = {}) {
  requireAdministrator(ctx, REFUSED);
  const data = parseInput(PLUGIN_FIELDS.update, input);
  await changeRecord<PluginRecord>(ctx, PLUGIN_WRITES, id, {
    event: PLUGIN_EVENTS.pluginUpdated,
    change: fieldsChange(PLUGIN_RECORDS, PLUGIN_FIELDS, id, data),
  }).catch(taken);
  return createdRecord<PluginRecord>(ctx, PLUGIN_RECORDS, id, query as Selection);
}

export async function deletePluginRecord(ctx: RequestContext, id: number): Promise<number> {
  requireAdministrator(ctx, REFUSED);
  return deleteRecord(ctx, PLUGIN_WRITES, id, PLUGIN_EVENTS.pluginDeleted);
}
