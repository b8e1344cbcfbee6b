import { PluginTriggerDocument } from "../generated/plugins.js";
import type { RestOperation } from "../types.js";

/**
 * Plugins (API document, "Plugins"): the trigger (docs/decisions.md, "Plugins"). The plugin records' rows
 * come from their declaration (src/plugins/area.ts).
 */
const operations: RestOperation[] = [
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
];

export default operations;
