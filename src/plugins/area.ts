import { z } from "zod";
import { defineArea } from "../common/area.js";
import { zeroOrOne } from "../common/validation.js";
import { illFormedTextPath, jsonDepth, jsonLength } from "../common/json-bounds.js";
import { pluginCode } from "./registry.js";

/** The original's view levels a plugin record carries (`access`). */
const ACCESS_DESCRIPTION = "1 public, 2 registered, 3 special.";

/** A folder or element: any text but a dot, which separates the group from the event in `group.event`. */
const word = z
  .string()
  .trim()
  .min(1, "must not be empty")
  .max(100)
  .regex(/^[^.]*$/, "must not contain a dot (group.event separates by one)");
const enabledRule = zeroOrOne("must be 0 (disabled) or 1 (enabled)");
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

/** Plugin records are for administrators: 401 without a user, 403 for anyone else (in the service, for REST and GraphQL alike). */
const REFUSED = "Only administrators can manage plugins.";
const extensionId = "Extension identifier.";

/**
 * Plugin records (API document, "Plugin record"): which plugins exist, in which folder (plugin group),
 * enabled or not, declared once (src/common/area.ts). They are for administrators only — reads and lists
 * too (docs/decisions.md, "Plugins"); the code a record stands for is found by folder and element
 * (src/plugins/registry.ts).
 */
export const PLUGINS = defineArea({
  area: "plugins",
  model: "PluginRecord",
  plural: "pluginRecords",
  label: "Plugin",
  description: "An installed plugin's record (administrators only): its folder and element find its code.",
  policy: { scoped: false, published: { field: "enabled", value: 1 }, administratorsOnly: true },
  fields: {
    name: { type: "String", rule: z.string().trim().min(1, "must not be empty").max(255), required: "create", description: "Name shown to administrators." },
    element: { type: "String", rule: word, required: "create", description: "The plugin's name within its folder: with folder, what finds its code." },
    folder: { type: "String", rule: word, required: "create", description: "The plugin group (groups, content, …)." },
    enabled: { type: "Int", rule: enabledRule, default: 0, description: "1 enabled (its listeners run, its events fire), 0 disabled (default)." },
    access: { type: "Int", rule: accessRule, default: 1, description: `Access level: ${ACCESS_DESCRIPTION} Default 1.`, rest: { privacy: true } },
    params: { type: "String", rule: paramsRule, description: "The plugin's options as JSON text (an object or a list); default {}." },
  },
  shown: {
    id: { rest: "extension_id", description: "The extension identifier (REST `extension_id`)." },
    name: true,
    element: true,
    folder: "The plugin group.",
    enabled: "1 enabled, 0 disabled.",
    access: ACCESS_DESCRIPTION,
    params: "The plugin's options as JSON text.",
    installed: {
      type: "Boolean",
      description: "Whether code exists for this folder and element (false: the record is allowed, but nothing runs for it).",
      resolve: (record: { folder: string; element: string }) => pluginCode(record.folder, record.element) !== undefined,
    },
    created: true,
    modified: true,
  },
  list: {
    description: "Plugin records (administrators only), filtered, searched, sorted and paged like GET /api/plugins/list.",
    // The documented defaults: enabled 1, access 1, any folder.
    filters: {
      folder: { type: "String", rule: word, description: "Only records of this folder (plugin group); absent: every folder." },
      enabled: { type: "Int", rule: enabledRule, default: 1, description: "1 enabled records (default), 0 disabled ones." },
      access: { type: "Int", rule: accessRule, default: 1, description: `Only records of this access level (default 1): ${ACCESS_DESCRIPTION}` },
    },
    sortColumns: { id: "id", name: "name", element: "element", folder: "folder", created: "created", modified: "modified" },
    defaults: { sort: "created", sortDir: "desc", limit: 25 },
    search: { in: "name or element", fields: ["name", "element"] },
  },
  read: { description: "One plugin record (administrators only)." },
  writes: {
    by: "administrators",
    forbidden: REFUSED,
    // One record per folder and element (its code is found by them): a second is 409 naming `element`.
    conflict: { parameter: "element", message: "A plugin with this folder and element exists already.", column: "element" },
    names: ["name", "folder", "element"],
    update: "Only the given fields change.",
    remove: "Deletes the plugin record; returns its id.",
  },
  // Their audience is `managers`: plugin records are read by administrators only, and a site record has no
  // other managers, so no subscriber but them learns of them.
  events: {
    pluginCreated: { description: "A plugin record was created.", audience: "managers" },
    pluginUpdated: { description: "A plugin record's fields changed (enabled, disabled, …); `changed` names them.", audience: "managers" },
    pluginDeleted: { description: "A plugin record was deleted.", audience: "managers" },
  },
  rest: {
    versions: ["1.0"],
    id: extensionId,
    create: { path: "/plugins", task: "create an entry" },
    list: { path: "/plugins/list", task: "list entries", key: "plugins", extra: { success: true } },
    // The API document writes {extension_id}; OpenAPI 3.1 forbids two templates that differ only in a
    // placeholder's name, so the path says {id} as the read's and delete's do, and feeds extension_id.
    replace: { path: "/plugins/{id}", task: "update an entry", id: { name: "extension_id" } },
    // The API document names the parameter extension_id (default 0) although the path says {id}.
    remove: { path: "/plugins/{id}", task: "delete an entry", id: { name: "extension_id", default: 0 } },
    read: { path: "/plugins/{id}", task: "retrieve an entry" },
  },
});
