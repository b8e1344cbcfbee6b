import { builder } from "../graphql/builder.js";
import { tableInput } from "../graphql/fields.js";
import { recordFields } from "../graphql/crud.js";
import { listType, pageArgs } from "../graphql/list.js";
import {
  createPluginRecord,
  deletePluginRecord,
  getPluginRecord,
  listPluginRecords,
  PLUGIN_FIELDS,
  PLUGIN_FILTERS,
  PLUGIN_LIST,
  updatePluginRecord,
  type PluginListArgs,
} from "./service.js";
import { pluginCode } from "./registry.js";
import { triggerPluginEvent } from "./trigger.js";
import { listNotifications, markNotificationsRead, type NotificationRow } from "./notifications.js";
// The plugins' listeners receive the outbox's events through the dispatcher (its `plugins` consumer).
import "./deliver.js";

export const PluginRecordType = builder.prismaObject("PluginRecord", {
  description: "An installed plugin's record (administrators only): its folder and element find its code.",
  fields: (t) => ({
    id: t.exposeID("id", { description: "The extension identifier (REST `extension_id`)." }),
    name: t.exposeString("name"),
    element: t.exposeString("element"),
    folder: t.exposeString("folder", { description: "The plugin group." }),
    enabled: t.exposeInt("enabled", { description: "1 enabled, 0 disabled." }),
    access: t.exposeInt("access", { description: "1 public, 2 registered, 3 special." }),
    params: t.exposeString("params", { description: "The plugin's options as JSON text." }),
    installed: t.boolean({
      description: "Whether code exists for this folder and element (false: the record is allowed, but nothing runs for it).",
      resolve: (record) => pluginCode(record.folder, record.element) !== undefined,
    }),
    created: t.expose("created", { type: "DateTime" }),
    modified: t.expose("modified", { type: "DateTime" }),
  }),
});

recordFields("PluginRecord", {
  type: PluginRecordType,
  plural: "pluginRecords",
  read: { description: "One plugin record (administrators only).", resolve: getPluginRecord },
  list: {
    description: "Plugin records (administrators only), filtered, searched, sorted and paged like GET /api/plugins/list.",
    spec: PLUGIN_LIST,
    filters: (t) => ({
      folder: t.string({ description: PLUGIN_FILTERS.folder.description }),
      enabled: t.int({ defaultValue: PLUGIN_FILTERS.enabled.default, description: PLUGIN_FILTERS.enabled.description }),
      access: t.int({ defaultValue: PLUGIN_FILTERS.access.default, description: PLUGIN_FILTERS.access.description }),
    }),
    resolve: (ctx, args, query) => listPluginRecords(ctx, args as PluginListArgs, query),
  },
  create: { scope: "admin", input: tableInput("CreatePluginRecordInput", PLUGIN_FIELDS, "create"), resolve: createPluginRecord },
  update: { scope: "admin", input: tableInput("UpdatePluginRecordInput", PLUGIN_FIELDS, "update", "Only the given fields change."), resolve: updatePluginRecord },
  remove: { scope: "admin", description: "Deletes the plugin record; returns its id.", resolve: deletePluginRecord },
});

builder.mutationField("triggerPluginEvent", (t) =>
  t.field({
    type: ["JSON"],
    description:
      "Fires a plugin event (GET /api/plugins/trigger): `event` is group.event, or an event name with `folder`. Answers the results of the enabled plugins' handlers ([] when none has it). Anonymous callers fire public events only.",
    authScopes: { public: true },
    args: {
      event: t.arg.string({ required: true, description: "Event name, optionally prefixed by its plugin group in dot notation (group.event)." }),
      folder: t.arg.string({ description: "The plugin group, when `event` names none." }),
    },
    resolve: (_root, args, ctx) => triggerPluginEvent(ctx, args),
  }),
);

const NotificationType = builder.objectRef<NotificationRow>("Notification").implement({
  description: "Something a plugin told you (a join request to a group you manage). Only your own.",
  fields: (t) => ({
    id: t.exposeID("id"),
    type: t.exposeString("type", { description: "The domain event that caused it (groups.joinRequested)." }),
    plugin: t.exposeString("plugin", { description: "The plugin that wrote it (folder.element)." }),
    eventId: t.exposeString("eventId", { description: "The outbox event's id." }),
    payload: t.expose("payload", { type: "JSON", description: "Ids and names: the group, the applicant." }),
    read: t.boolean({ resolve: (row) => row.readAt !== null }),
    readAt: t.expose("readAt", { type: "DateTime", nullable: true }),
    created: t.expose("created", { type: "DateTime" }),
  }),
});

builder.queryField("notifications", (t) =>
  t.field({
    type: listType("NotificationList", NotificationType),
    description: "Your notifications, newest first.",
    authScopes: { user: true },
    args: {
      unread: t.arg.boolean({ description: "true: unread only; false: read only; absent: all." }),
      ...pageArgs,
    },
    resolve: (_root, args, ctx) => listNotifications(ctx, args),
  }),
);

builder.mutationField("markNotificationsRead", (t) =>
  t.int({
    description: "Marks your notifications read: the given ids, or all of them. Answers how many were unread.",
    authScopes: { user: true },
    args: { ids: t.arg.idList({ description: "Absent: all your notifications." }) },
    resolve: (_root, args, ctx) => markNotificationsRead(ctx, args.ids),
  }),
);
