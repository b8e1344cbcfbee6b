import { builder } from "../graphql/builder.js";
import { badInput, notFound } from "../common/errors.js";
import { unknownEventTypes } from "../common/events.js";
import { findVisible } from "../common/record-reads.js";
import { scopeKind } from "../common/scope-kinds.js";
import { everyWrittenRecords, type WrittenRecords } from "../common/written-records.js";
import type { StoredEvent } from "../common/outbox.js";
import { hubOf, isSubscriptionFailure, type DeliveredEvent, type SubscriptionFailure } from "./subscriptions.js";
import { resumedAfter, subscribedFrom } from "./subscription-request.js";

/**
 * The subscriptions (docs/events.md, "Subscriptions"): `events(types, scope, scopeId)`, and per record
 * `<record>Changed(id)` by the naming rule, made from each area's written records (`changedSubscription`).
 * Served by graphql-yoga over SSE at /graphql, authenticated as queries are; every delivery is checked
 * against what the subscriber may read then (src/events/subscriptions.ts).
 */
const DomainEventRef = builder.objectRef<DeliveredEvent>("DomainEvent").implement({
  description: "A committed write (docs/events.md): which record, what changed, who did it (unless the record is anonymous).",
  fields: (t) => ({
    id: t.exposeString("cursor", { description: "The event's place in the outbox (transaction:event), in commit order per record." }),
    type: t.exposeString("type", { description: "From the catalogue: `wiki.pageUpdated`, `groups.memberJoined`, …" }),
    area: t.exposeString("area"),
    recordId: t.exposeInt("recordId"),
    actorId: t.int({ nullable: true, description: "Who wrote it; null for the system, or when the record is anonymous and you are neither its author nor an administrator.", resolve: (event) => event.actorId }),
    scope: t.exposeString("scope"),
    scopeId: t.exposeInt("scopeId"),
    visibility: t.exposeString("visibility", { description: "public, registered or private, as the record was when written." }),
    published: t.exposeBoolean("published"),
    subjectId: t.int({ nullable: true, description: "The person the event is about (an invitee, an applicant).", resolve: (event) => event.subjectId ?? null }),
    changed: t.exposeStringList("changed", { description: "The fields the write changed (every field on a create)." }),
    payload: t.field({ type: "JSON", description: "The record's id and the fields that name it; never text bodies or secrets.", resolve: (event) => event.payload }),
    occurredAt: t.field({ type: "DateTime", resolve: (event) => event.occurredAt }),
  }),
});

builder.subscriptionField("events", (t) =>
  t.field({
    type: DomainEventRef,
    description: "Domain events as they commit, those you may read at that moment: all, or only `types`, or only one scope's (`scope`, with `scopeId`).",
    authScopes: { public: true },
    args: {
      types: t.arg.stringList({ required: false, description: "Event types of the catalogue (docs/events.md); default every type." }),
      scope: t.arg.string({ required: false, description: "Only events of records in this scope kind." }),
      scopeId: t.arg.int({ required: false, description: "With `scope`: only this scope's events." }),
    },
    subscribe: (_root, { types, scope, scopeId }, ctx) => {
      const unknown = unknownEventTypes(types ?? []);
      if (unknown) throw badInput("types", unknown);
      if (scope) scopeKind(scope);
      if (scopeId != null && !scope) throw badInput("scopeId", "needs scope");
      const wanted = types?.length ? new Set(types) : null;
      return hubOf(ctx.db).subscribe(
        ctx.viewer,
        (event: StoredEvent) => (!wanted || wanted.has(event.type)) && (!scope || event.scope === scope) && (scopeId == null || event.scopeId === scopeId),
        resumedAfter(ctx.lastEventId),
        subscribedFrom(ctx),
      );
    },
    resolve: deliver,
  }),
);

/** An event as delivered, or the error that ended the subscription (lagging), as one GraphQL error. */
function deliver(event: DeliveredEvent | SubscriptionFailure): DeliveredEvent {
  if (isSubscriptionFailure(event)) throw event.failed;
  return event;
}

/** `<record>Changed(id)`: one record's events, from the moment of subscribing; a record the caller may not read is 404. */
function recordChangedSubscription(written: WrittenRecords & { changedSubscription: string }) {
  builder.subscriptionField(written.changedSubscription, (t) =>
    t.field({
      type: DomainEventRef,
      description: `The events of one ${written.area} record (updates, and its deletion) as they commit, while you may read it.`,
      authScopes: { public: true },
      args: { id: t.arg.int({ required: true }) },
      subscribe: async (_root, { id }, ctx) => {
        if (!(await findVisible(ctx, written.records, id))) throw notFound(written.notFound(id));
        return hubOf(ctx.db).subscribe(ctx.viewer, (event) => event.area === written.area && event.recordId === id, resumedAfter(ctx.lastEventId), subscribedFrom(ctx));
      },
      resolve: deliver,
    }),
  );
}

for (const written of everyWrittenRecords()) if (written.changedSubscription) recordChangedSubscription(written as WrittenRecords & { changedSubscription: string });
