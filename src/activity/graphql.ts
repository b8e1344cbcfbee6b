import { builder } from "../graphql/builder.js";
import "./consumer.js";
import { listType, pageArgs } from "../graphql/list.js";
import { queryFromInfo } from "@pothos/plugin-prisma";
import { sqlOf } from "../common/context.js";
import { requireUser } from "../common/scopes.js";
import { hubOf, isSubscriptionFailure, type DeliveredEvent, type SubscriptionFailure } from "../events/subscriptions.js";
import { activityFeed, channelTextsOf } from "./service.js";
import { ACTIVITY_AREA } from "./area.js";
import { areaType } from "../graphql/area.js";

/** The entry's record type, from its declaration (src/activity/area.ts). */
export const ActivityEntryType = areaType(ACTIVITY_AREA);

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
      const mine = await channelTextsOf(sqlOf(ctx), user.id);
      return hubOf(ctx.db).subscribe(ctx.viewer, (event) =>
        event.type === "activity.activityEntryCreated" && String(event.payload.recipients ?? "").split(",").some((recipient) => mine.has(recipient)),
      );
    },
    resolve: async (event: DeliveredEvent | SubscriptionFailure, _args, ctx) => {
      if (isSubscriptionFailure(event)) throw event.failed;
      return ACTIVITY_AREA.readRecord(ctx, event.recordId);
    },
  }),
);
