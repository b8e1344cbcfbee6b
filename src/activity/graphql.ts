import { builder } from "../graphql/builder.js";
import { UserType } from "../users/graphql.js";
import "./group-content.js";
import "./consumer.js";
import { tableInput } from "../graphql/fields.js";
import { recordFields } from "../graphql/crud.js";
import { listType, pageArgs } from "../graphql/list.js";
import { queryFromInfo } from "@pothos/plugin-prisma";
import { Prisma } from "../generated/prisma/client.js";
import { sqlClientOf } from "../db/sql.js";
import { requireUser } from "../common/scopes.js";
import { hubOf, isSubscriptionFailure, type DeliveredEvent, type SubscriptionFailure } from "../events/subscriptions.js";
import {
  ACTIVITY_FIELDS,
  ACTIVITY_LIST,
  activityFeed,
  channelTextsOf,
  createActivityEntry,
  deleteActivityEntry,
  getActivityEntry,
  listActivityEntries,
  showsActor,
  shownRecipients,
  updateActivityEntry,
  type ActivityListArgs,
} from "./service.js";

export const ActivityEntryType = builder.prismaObject("ActivityEntry", {
  description: "An activity entry: what happened in a scope, sent to its recipients.",
  fields: (t) => ({
    id: t.exposeID("id"),
    scope: t.exposeString("scope"),
    scopeId: t.exposeInt("scopeId"),
    action: t.exposeString("action"),
    alias: t.exposeString("alias"),
    description: t.exposeString("description"),
    anonymous: t.exposeInt("anonymous", { description: "0 = false, 1 = true: the actor is shown only to the author and administrators." }),
    parent: t.exposeInt("parentId", { description: "ID of the parent entry (0: none)." }),
    recipients: t.string({
      description: "Comma-separated <scope>:<scope_id> pairs the entry is sent to: all of them to its author and administrators, to others those that concern them (the site, themselves, their groups).",
      select: { createdById: true },
      resolve: (entry, _args, ctx) => shownRecipients(ctx, entry),
    }),
    created: t.expose("created", { type: "DateTime" }),
    modified: t.expose("modified", { type: "DateTime" }),
    createdById: t.int({
      nullable: true,
      description: "The author's id; null for an anonymous entry, except to its author and administrators.",
      resolve: (entry, _args, ctx) => (showsActor(ctx, entry) ? entry.createdById : null),
    }),
    createdBy: t.field({
      type: UserType,
      nullable: true,
      select: { createdBy: true },
      description: "The author; null for an anonymous entry, except to its author and administrators.",
      resolve: (entry, _args, ctx) => (showsActor(ctx, entry) ? entry.createdBy : null),
    }),
  }),
});

recordFields("ActivityEntry", {
  type: ActivityEntryType,
  plural: "activityEntries",
  read: { description: "One activity entry sent to the caller (or public, or theirs).", resolve: getActivityEntry },
  list: {
    description: "Activity entries of one scope the caller hears, searched, sorted and paged like GET /api/activity/list (1.1's filters too).",
    spec: ACTIVITY_LIST,
    filters: (t) => ({
      startDate: t.string({ description: "Created at or after: YYYY-MM-DD or YYYY-MM-DD HH:mm:ss (UTC)." }),
      endDate: t.string({ description: "Created before: YYYY-MM-DD or YYYY-MM-DD HH:mm:ss (UTC)." }),
      recipients: t.string({ description: "Only entries sent to one of these comma-separated <scope>:<scope_id> recipients (a bare id is a member)." }),
    }),
    resolve: (ctx, args, query) => listActivityEntries(ctx, args as ActivityListArgs, query),
  },
  create: { scope: "user", input: tableInput("CreateActivityEntryInput", ACTIVITY_FIELDS, "create"), resolve: createActivityEntry },
  update: { scope: "user", input: tableInput("UpdateActivityEntryInput", ACTIVITY_FIELDS, "update", "Only the given fields change."), resolve: updateActivityEntry },
  remove: { scope: "user", description: "Deletes the activity entry; returns its id.", resolve: deleteActivityEntry },
});

const ActivityFeedType = listType("ActivityFeed", ActivityEntryType);

builder.queryField("activityFeed", (t) =>
  t.field({
    type: ActivityFeedType,
    description: "The caller's feed: every activity entry sent to them or to a group they belong to, across scopes, newest first, with the exact total.",
    authScopes: { user: true },
    args: pageArgs,
    resolve: (_root, args, ctx, info) => activityFeed(ctx, args, queryFromInfo({ context: ctx, info, typeName: "ActivityEntry", path: ["items"] })),
  }),
);

/**
 * New entries of the caller's feed as they commit: entries sent to them or to a group they belonged to when
 * subscribing (the event's `recipients`), each as the caller may read it (the hub delivers only what they may read).
 */
builder.subscriptionField("activityFeed", (t) =>
  t.field({
    type: ActivityEntryType,
    description: "New activity entries sent to you or to your groups, as they commit (the subscription twin of the activityFeed query).",
    authScopes: { user: true },
    subscribe: async (_root, _args, ctx) => {
      const user = requireUser(ctx);
      const mine = await channelTextsOf(sqlClientOf(ctx.db), user.id);
      return hubOf(ctx.db).subscribe(ctx.viewer, (event) =>
        event.type === "activity.activityEntryCreated" && String(event.payload.recipients ?? "").split(",").some((recipient) => mine.has(recipient)),
      );
    },
    resolve: async (event: DeliveredEvent | SubscriptionFailure, _args, ctx) => {
      if (isSubscriptionFailure(event)) throw event.failed;
      return getActivityEntry(ctx, event.recordId);
    },
  }),
);
