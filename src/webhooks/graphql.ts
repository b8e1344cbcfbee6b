import { ANSWERS_SECRET } from "../graphql/crud.js";
import { builder } from "../graphql/builder.js";
import { listType, pageArgs } from "../graphql/list.js";
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  DELIVERY_STATES,
  getWebhookEndpoint,
  listWebhookDeliveries,
  listWebhookEndpoints,
  MAX_ATTEMPTS_SHOWN,
  replayWebhookDelivery,
  rotateWebhookEndpointSecret,
  updateWebhookEndpoint,
  type AttemptRow,
  type DeliveryRow,
  type EndpointRow,
} from "./service.js";
// The outbox consumer that queues deliveries registers with the dispatcher when this area loads.
import "./delivery.js";

const WebhookEndpointType = builder.objectRef<EndpointRow>("WebhookEndpoint").implement({
  description: "Where events are POSTed, signed as Standard Webhooks (docs/events.md, \"Webhooks\"). Seen by its owner and administrators only.",
  fields: (t) => ({
    id: t.exposeID("id"),
    url: t.exposeString("url"),
    eventTypes: t.exposeStringList("eventTypes", { description: "The event types delivered (the catalogue's `<area>.<name>`)." }),
    scope: t.exposeString("scope", { description: "`site`: every event, administrators' endpoint; `group`: the group's events, its manager's." }),
    scopeId: t.exposeInt("scopeId", { description: "0 for the site; the group's id." }),
    description: t.exposeString("description"),
    enabled: t.exposeBoolean("enabled", { description: "Disabled endpoints are sent nothing, and queue nothing, until enabled again." }),
    disabledReason: t.exposeString("disabledReason", { nullable: true, description: "Why it was disabled: a run of failed attempts, its owner no longer a manager, by hand." }),
    disabledAt: t.expose("disabledAt", { type: "DateTime", nullable: true }),
    consecutiveFailures: t.exposeInt("consecutiveFailures", { description: "Failed attempts in a row; WEBHOOK_DISABLE_AFTER_FAILURES of them disable it." }),
    ownerId: t.exposeID("createdById", { nullable: true, description: "Who registered it (null: the command line)." }),
    created: t.expose("created", { type: "DateTime" }),
    modified: t.expose("modified", { type: "DateTime" }),
  }),
});

const WebhookAttemptType = builder.objectRef<AttemptRow>("WebhookAttempt").implement({
  description: "One request of a delivery.",
  fields: (t) => ({
    id: t.exposeID("id"),
    attemptedAt: t.expose("attemptedAt", { type: "DateTime" }),
    outcome: t.exposeString("outcome", { description: "delivered (2xx), http_error (any other status: redirects are not followed), timeout, refused (the address), network." }),
    status: t.exposeInt("status", { nullable: true, description: "The answer's HTTP status, when one came." }),
    durationMs: t.exposeInt("durationMs"),
    response: t.exposeString("response", { description: "The first KB of the answer's body." }),
    error: t.exposeString("error", { nullable: true }),
    replay: t.exposeBoolean("replay", { description: "Asked for by replayWebhookDelivery." }),
  }),
});

const WebhookDeliveryType = builder.objectRef<DeliveryRow>("WebhookDelivery").implement({
  description: "One event for one endpoint, sent until delivered or failed.",
  fields: (t) => ({
    id: t.exposeID("id"),
    endpointId: t.exposeID("endpointId"),
    eventId: t.exposeID("eventId", { description: "The outbox event's id." }),
    eventType: t.exposeString("eventType"),
    webhookId: t.exposeString("webhookId", { description: "The `webhook-id` header of every attempt and replay." }),
    payload: t.exposeString("body", { description: "The exact JSON body sent (the event as the endpoint's owner could read it when it was queued)." }),
    state: t.exposeString("state", { description: DELIVERY_STATES.join(", ") }),
    attemptCount: t.exposeInt("attemptCount"),
    nextAttemptAt: t.expose("nextAttemptAt", { type: "DateTime", description: "When a pending delivery is due." }),
    lastStatus: t.exposeInt("lastStatus", { nullable: true }),
    lastError: t.exposeString("lastError", { nullable: true }),
    created: t.expose("created", { type: "DateTime" }),
    completedAt: t.expose("completedAt", { type: "DateTime", nullable: true, description: "When it was delivered or failed." }),
    attempts: t.field({ type: [WebhookAttemptType], description: `Its latest ${MAX_ATTEMPTS_SHOWN} attempts, newest first.`, resolve: (delivery) => delivery.attempts }),
  }),
});

const CreatedWebhookEndpointType = builder.objectRef<{ endpoint: EndpointRow; secret: string }>("CreatedWebhookEndpoint").implement({
  fields: (t) => ({
    endpoint: t.field({ type: WebhookEndpointType, resolve: (created) => created.endpoint }),
    secret: t.exposeString("secret", { description: "The signing secret (`whsec_…`), shown this once (here and when rotated): verify the requests with it (any Standard Webhooks library)." }),
  }),
});

const CreateWebhookEndpointInput = builder.inputType("CreateWebhookEndpointInput", {
  fields: (t) => ({
    url: t.string({ required: true, description: "http or https; it must reach a public address (WEBHOOK_ALLOWED_ADDRESSES excepted)." }),
    eventTypes: t.stringList({ required: true, description: "Event types of the catalogue (docs/events.md)." }),
    scope: t.string({ required: true, description: "`site` (administrators) or `group` (the group's managers)." }),
    scopeId: t.int({ required: true, description: "0 for the site; the group's id." }),
    description: t.string(),
  }),
});

const UpdateWebhookEndpointInput = builder.inputType("UpdateWebhookEndpointInput", {
  description: "Only the given fields change.",
  fields: (t) => ({
    url: t.string(),
    eventTypes: t.stringList(),
    description: t.string(),
    enabled: t.boolean({ description: "true enables a disabled endpoint again (its count of failures starts from 0)." }),
  }),
});

builder.queryField("webhookEndpoints", (t) =>
  t.field({
    type: listType("WebhookEndpointList", WebhookEndpointType),
    description: "Webhook endpoints, newest first: administrators see every one, others those they registered.",
    authScopes: { user: true },
    args: { scope: t.arg.string({ description: "site or group." }), scopeId: t.arg.int(), ...pageArgs },
    resolve: (_root, args, ctx) => listWebhookEndpoints(ctx, args),
  }),
);

builder.queryField("webhookEndpoint", (t) =>
  t.field({
    type: WebhookEndpointType,
    description: "One webhook endpoint (its owner and administrators).",
    authScopes: { user: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => getWebhookEndpoint(ctx, String(id)),
  }),
);

builder.queryField("webhookDeliveries", (t) =>
  t.field({
    type: listType("WebhookDeliveryList", WebhookDeliveryType),
    description: "An endpoint's deliveries with their attempts, newest first (its owner and administrators).",
    authScopes: { user: true },
    args: { endpointId: t.arg.id({ required: true }), state: t.arg.string({ description: DELIVERY_STATES.join(", ") }), ...pageArgs },
    resolve: (_root, args, ctx) => listWebhookDeliveries(ctx, { ...args, endpointId: String(args.endpointId) }),
  }),
);

builder.mutationField("createWebhookEndpoint", (t) =>
  t.field({
    type: CreatedWebhookEndpointType,
    description: "Registers an endpoint: site-wide (administrators) or for a group's events (its managers). Answers its secret, this once.",
    extensions: ANSWERS_SECRET,
    authScopes: { user: true },
    args: { input: t.arg({ type: CreateWebhookEndpointInput, required: true }) },
    resolve: (_root, { input }, ctx) => createWebhookEndpoint(ctx, input),
  }),
);

builder.mutationField("updateWebhookEndpoint", (t) =>
  t.field({
    type: WebhookEndpointType,
    description: "Changes an endpoint's URL, event types, description, or enables or disables it.",
    authScopes: { user: true },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateWebhookEndpointInput, required: true }) },
    resolve: (_root, { id, input }, ctx) =>
      updateWebhookEndpoint(ctx, String(id), Object.fromEntries(Object.entries(input).filter(([, value]) => value !== null && value !== undefined))),
  }),
);

builder.mutationField("rotateWebhookEndpointSecret", (t) =>
  t.field({
    type: CreatedWebhookEndpointType,
    description: "Gives an endpoint a new signing secret, answered this once; every request from now on is signed with it only.",
    extensions: ANSWERS_SECRET,
    authScopes: { user: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => rotateWebhookEndpointSecret(ctx, String(id)),
  }),
);

builder.mutationField("deleteWebhookEndpoint", (t) =>
  t.field({
    type: "ID",
    description: "Deletes an endpoint with its deliveries; returns its id.",
    authScopes: { user: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => deleteWebhookEndpoint(ctx, String(id)),
  }),
);

builder.mutationField("replayWebhookDelivery", (t) =>
  t.field({
    type: WebhookDeliveryType,
    description: "Sends a delivery again now, with the same webhook-id and body (a receiver that dropped it, a failed one).",
    authScopes: { user: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => replayWebhookDelivery(ctx, String(id)),
  }),
);
