import { RUNS_APART } from "../graphql/crud.js";
import { builder } from "../graphql/builder.js";
import { listType, pageArgs } from "../graphql/list.js";
import { triggerPluginEvent } from "./trigger.js";
import { listNotifications, markNotificationsRead, type NotificationRow } from "./notifications.js";
// The plugins' listeners receive the outbox's events through the dispatcher (its `plugins` consumer).
import "./deliver.js";

// The plugin records' type and root fields come from their declaration (src/plugins/area.ts); here are the
// trigger and the notifications plugins write.
builder.mutationField("triggerPluginEvent", (t) =>
  t.field({
    type: ["JSON"],
    extensions: RUNS_APART,
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
