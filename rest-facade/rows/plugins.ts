import { PluginCreateDocument, PluginDeleteDocument, PluginListDocument, PluginReadDocument, PluginTriggerDocument, PluginUpdateDocument } from "../generated/plugins.js";
import type { RestOperation, RestParam } from "../types.js";
import { listParams } from "../list-params.js";
import { fieldParams } from "../field-params.js";
import { PLUGIN_FIELDS, PLUGIN_FILTERS, PLUGIN_LIST } from "../../src/plugins/service.js";

/** Plugins (API document, "Plugins"): records for administrators, and the trigger (docs/decisions.md, "Plugins"). */
const extensionId = (placeholder?: string): RestParam => ({
  name: "extension_id",
  type: "integer",
  required: true,
  description: "Extension identifier.",
  variable: "id",
  ...(placeholder ? { placeholder, default: 0 } : {}),
});

const operations: RestOperation[] = [
  {
    area: "plugins",
    method: "POST",
    path: "/plugins",
    versions: ["1.0"],
    task: "create an entry",
    params: fieldParams(PLUGIN_FIELDS, "create"),
    document: PluginCreateDocument,
    resultField: "createPluginRecord",
    response: { kind: "record" },
    status: 201,
    access: "administrator",
  },
  {
    area: "plugins",
    method: "GET",
    path: "/plugins/list",
    versions: ["1.0"],
    task: "list entries",
    params: [
      { name: "folder", type: "string", required: false, description: PLUGIN_FILTERS.folder.description, variable: "folder" },
      { name: "enabled", type: "integer", required: false, default: PLUGIN_FILTERS.enabled.default, description: PLUGIN_FILTERS.enabled.description, variable: "enabled" },
      { name: "access", type: "integer", required: false, default: PLUGIN_FILTERS.access.default, description: PLUGIN_FILTERS.access.description, variable: "access" },
      ...listParams(PLUGIN_LIST),
    ],
    document: PluginListDocument,
    resultField: "pluginRecords",
    response: { kind: "list", key: "plugins", extra: { success: true } },
    status: 200,
    access: "administrator",
  },
  {
    area: "plugins",
    method: "GET",
    path: "/plugins/trigger",
    versions: ["1.0"],
    task: "trigger a specific event",
    params: [
      { name: "event", type: "string", required: true, description: "Event name, optionally prefixed by its plugin group in dot notation (group.event).", variable: "event" },
      { name: "folder", type: "string", required: false, description: "The plugin group, when `event` names none.", variable: "folder" },
    ],
    document: PluginTriggerDocument,
    resultField: "triggerPluginEvent",
    response: { kind: "record" },
    status: 200,
    access: "anyone",
  },
  {
    area: "plugins",
    method: "PUT",
    // The API document writes {extension_id}; OpenAPI 3.1 forbids two templates that differ only in a
    // placeholder's name, so the path says {id} as the read's and delete's do, and feeds extension_id.
    path: "/plugins/{id}",
    versions: ["1.0"],
    task: "update an entry",
    params: [{ ...extensionId(), placeholder: "id" }, ...fieldParams(PLUGIN_FIELDS, "replace")],
    document: PluginUpdateDocument,
    resultField: "updatePluginRecord",
    response: { kind: "record" },
    status: 200,
    access: "administrator",
  },
  {
    area: "plugins",
    method: "DELETE",
    path: "/plugins/{id}",
    versions: ["1.0"],
    task: "delete an entry",
    // The API document names the parameter extension_id (default 0) although the path says {id}.
    params: [extensionId("id")],
    document: PluginDeleteDocument,
    resultField: "deletePluginRecord",
    response: { kind: "empty" },
    status: 204,
    access: "administrator",
  },
  {
    area: "plugins",
    method: "GET",
    path: "/plugins/{id}",
    versions: ["1.0"],
    task: "retrieve an entry",
    params: [{ name: "id", type: "integer", required: true, description: "Extension identifier.", variable: "id" }],
    document: PluginReadDocument,
    resultField: "pluginRecord",
    response: { kind: "record" },
    status: 200,
    access: "administrator",
  },
];

export default operations;
