import crypto from "node:crypto";
import { z } from "zod";
import { Prisma } from "../generated/prisma/client.js";
import { afterCommit, sqlOf, type RequestContext } from "../common/context.js";
import { badInput, conflict, forbidden, notFound } from "../common/errors.js";
import { unknownEventTypes } from "../common/events.js";
import { pageWindow, type Page, type PageArgs } from "../common/list-spec.js";
import { conditionHolds, requireUser } from "../common/scopes.js";
import { parseId, parseInput } from "../common/validation.js";
import { decodeTimestamp } from "../db/sql.js";
import { allowedRanges, checkDestination, RefusedDestination } from "./addresses.js";
import { messageId, wakeWebhookSenders } from "./delivery.js";
import { registerScopeContent } from "../common/scope-content.js";
import { inWriteTransaction } from "../common/write-path.js";
import { holdsRelationSql, scopeKind } from "../common/scope-kinds.js";

/**
 * Webhook endpoints (docs/events.md, "Webhooks"): administrators register site-wide ones (every event of the
 * chosen types), a group's managers endpoints for their group's events. An endpoint is its owner's: the
 * manager who registered it (and administrators, who see and manage every endpoint) — other managers of the
 * group do not see it. A group endpoint's owner must still manage the group to change, enable or replay it,
 * and for it to receive anything (src/webhooks/delivery.ts disables it otherwise). The secret is shown once,
 * when the endpoint is made. Endpoints are configuration, not content: their changes append no domain event.
 */

export interface EndpointRow {
  id: number;
  url: string;
  eventTypes: string[];
  scope: string;
  scopeId: number;
  description: string;
  enabled: boolean;
  disabledReason: string | null;
  disabledAt: Date | null;
  consecutiveFailures: number;
  createdById: number | null;
  created: Date;
  modified: Date;
}

export interface AttemptRow {
  id: string;
  attemptedAt: Date;
  outcome: string;
  status: number | null;
  durationMs: number;
  response: string;
  error: string | null;
  replay: boolean;
}

export interface DeliveryRow {
  id: string;
  endpointId: number;
  eventId: string;
  eventType: string;
  webhookId: string;
  body: string;
  state: string;
  attemptCount: number;
  nextAttemptAt: Date;
  lastStatus: number | null;
  lastError: string | null;
  created: Date;
  completedAt: Date | null;
  /** The latest MAX_ATTEMPTS_SHOWN attempts, newest first. */
  attempts: AttemptRow[];
}

/** Endpoints one scope may have: each costs a request per event. */
export const MAX_ENDPOINTS_PER_SCOPE = 20;
/** Attempts a delivery shows (newest first); the delivery counts them all. */
export const MAX_ATTEMPTS_SHOWN = 50;
export const DELIVERY_STATES = ["pending", "delivered", "failed"] as const;

const REFUSED_SITE = "Only administrators can manage site-wide webhook endpoints.";
const REFUSED_GROUP = "Only the group's managers can manage its webhook endpoints.";
const REFUSED_ENDPOINT = "Only the endpoint's owner and administrators can see or change it.";

const date = (value: unknown) => (value == null ? null : decodeTimestamp(value as string));
const ENDPOINT_COLUMNS = Prisma.sql`id, url, event_types AS "eventTypes", scope, scope_id AS "scopeId", description, enabled, disabled_reason AS "disabledReason",
  disabled_at AS "disabledAt", consecutive_failures AS "consecutiveFailures", created_by AS "createdById", created, modified`;
const endpointOf = (row: Record<string, unknown>): EndpointRow =>
  ({ ...row, disabledAt: date(row.disabledAt), created: date(row.created), modified: date(row.modified) }) as EndpointRow;

const eventTypesRule = z
  .array(z.string())
  .min(1, "must name at least one event type")
  .max(200)
  .transform((types) => [...new Set(types)])
  .superRefine((types, issues) => {
    const problem = unknownEventTypes(types);
    if (problem) issues.addIssue({ code: "custom", message: problem });
  });
const urlRule = z.string().trim().min(1, "must not be empty").max(2000, "must not be longer than 2000 characters");
const descriptionRule = z.string().trim().max(500, "must not be longer than 500 characters");

const createRule = z.object({
  url: urlRule,
  eventTypes: eventTypesRule,
  scope: z.enum(["site", "group"], { error: "must be site or group" }),
  scopeId: z.number().int().min(0, "must be 0 (site) or a group's id"),
  description: descriptionRule.optional(),
});
const updateRule = z.object({
  url: urlRule.optional(),
  eventTypes: eventTypesRule.optional(),
  description: descriptionRule.optional(),
  enabled: z.boolean().optional(),
});

/** The URL, if it may be used: an http(s) URL reaching a public address (or an allowed one); 400 naming `url` otherwise. */
async function checkedUrl(ctx: RequestContext, url: string): Promise<string> {
  try {
    await checkDestination(url, allowedRanges(ctx.config.webhookAllowedAddresses));
  } catch (error) {
    if (error instanceof RefusedDestination) throw badInput("url", error.message);
    throw error;
  }
  return url;
}

/**
 * Whether the user manages the scope now, by its kind's `managers` rule, which locks what it reads (a group's
 * manager membership, FOR SHARE): inside the write's transaction, a demotion committing meanwhile is either
 * waited for and seen, or waits for this write.
 */
async function managesScope(ctx: RequestContext, userId: number, scope: string, scopeId: number): Promise<boolean> {
  return conditionHolds(ctx, holdsRelationSql("managers", scope, Prisma.sql`${scopeId}::int`, userId, { lock: true }));
}

/** May the caller register endpoints in this scope? Administrators: the site and any group that exists; managers: their group. */
async function assertMayRegister(ctx: RequestContext, scope: "site" | "group", scopeId: number): Promise<void> {
  const user = requireUser(ctx);
  if (scope === "site") {
    if (!user.isAdmin) throw forbidden(REFUSED_SITE);
    if (scopeId !== 0) throw badInput("scopeId", "must be 0 for the site");
    return;
  }
  // The group's row is locked (FOR KEY SHARE) until the endpoint commits, before the membership (the order
  // of group deletion and membership changes): a deletion that began first is waited for and its group is
  // then missing; one that begins later waits, and takes the endpoint with it (registerScopeContent below).
  // The kind's own `exists`, which takes that lock.
  const exists = await conditionHolds(ctx, scopeKind(scope).exists?.(scopeId) ?? true);
  if (user.isAdmin) {
    if (!exists) throw badInput("scopeId", `no group with id ${scopeId}`);
    return;
  }
  // A group that does not exist (or is hidden from the caller) answers as one they do not manage.
  if (!exists || !(await managesScope(ctx, user.id, scope, scopeId))) throw forbidden(REFUSED_GROUP);
}

/**
 * The endpoint, if the caller may see it (its owner, administrators); with `change`, if they may change it
 * too — a group endpoint's owner only while they manage the group. 404 when it does not exist, 403 otherwise.
 * A change calls it in its write transaction (`changeEndpoint`): the row is locked and the management read
 * under lock, so the change is authorized on what holds when it is made.
 */
async function endpointFor(ctx: RequestContext, id: number, change: boolean): Promise<EndpointRow> {
  const user = requireUser(ctx);
  const [row] = await sqlOf(ctx).query<Record<string, unknown>>(
    Prisma.sql`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = ${id}${change ? Prisma.sql` FOR UPDATE` : Prisma.empty}`,
  );
  if (!row) throw notFound(`Webhook endpoint ${id} not found.`);
  const endpoint = endpointOf(row);
  if (user.isAdmin) return endpoint;
  if (endpoint.scope === "site" || endpoint.createdById !== user.id) throw forbidden(REFUSED_ENDPOINT);
  if (change && !(await managesScope(ctx, user.id, endpoint.scope, endpoint.scopeId))) throw forbidden(REFUSED_GROUP);
  return endpoint;
}

/** Runs a change of endpoint `id` in one write transaction, on the endpoint locked and authorized (`endpointFor`). */
function changeEndpoint<T>(ctx: RequestContext, id: number, work: (tx: RequestContext, endpoint: EndpointRow) => Promise<T>): Promise<T> {
  return inWriteTransaction(ctx, async (tx) => work(tx, await endpointFor(tx, id, true)));
}

/** A new signing secret: `whsec_` and 32 random bytes in base64, as Standard Webhooks' libraries read it. */
export const newSecret = () => `whsec_${crypto.randomBytes(32).toString("base64")}`;

export async function createWebhookEndpoint(ctx: RequestContext, input: Record<string, unknown>): Promise<{ endpoint: EndpointRow; secret: string }> {
  const user = requireUser(ctx);
  const data = parseInput(createRule, input);
  // Authorized before the URL is looked up (its answer names addresses: not for callers who may not
  // register here), and again under lock in the transaction; the lookup, which may wait on DNS, between.
  await assertMayRegister(ctx, data.scope, data.scopeId);
  const url = await checkedUrl(ctx, data.url);
  return inWriteTransaction(ctx, async (tx) => {
    await assertMayRegister(tx, data.scope, data.scopeId);
    // Registrations in one scope take turns (a transaction-level lock), so the count below stays true until
    // this one commits: racing registrations cannot pass the limit together.
    await sqlOf(tx).query(Prisma.sql`SELECT pg_advisory_xact_lock(hashtext('hubgraph webhook endpoints'), hashtext(${`${data.scope}:${data.scopeId}`}))`);
    const [{ count }] = (await sqlOf(tx).query<{ count: number }>(
      Prisma.sql`SELECT count(*)::int AS count FROM webhook_endpoints WHERE scope = ${data.scope} AND scope_id = ${data.scopeId}`,
    )) as [{ count: number }];
    if (count >= MAX_ENDPOINTS_PER_SCOPE) throw conflict("scope", `This ${data.scope} has ${MAX_ENDPOINTS_PER_SCOPE} webhook endpoints already: delete one first.`);
    const secret = newSecret();
    // The CLI's operator (id 0) is no account: a site endpoint it makes has no owner but the administrators.
    const owner = user.id > 0 ? user.id : null;
    const [row] = await sqlOf(tx).query<Record<string, unknown>>(Prisma.sql`
      INSERT INTO webhook_endpoints (url, event_types, scope, scope_id, description, secret, created_by)
      VALUES (${url}, ${data.eventTypes}::text[], ${data.scope}, ${data.scopeId}, ${data.description ?? ""}, ${secret}, ${owner})
      RETURNING ${ENDPOINT_COLUMNS}`);
    return { endpoint: endpointOf(row!), secret };
  });
}

/** Changes the given fields; `enabled: true` enables a disabled endpoint again (its run of failures starts from 0). */
export async function updateWebhookEndpoint(ctx: RequestContext, idValue: string | number, input: Record<string, unknown>): Promise<EndpointRow> {
  const id = parseId(idValue);
  const data = parseInput(updateRule, input);
  if (data.url !== undefined) {
    // As for a registration: authorized before the lookup, and again under lock (`changeEndpoint`).
    await endpointFor(ctx, id, true);
    await checkedUrl(ctx, data.url);
  }
  const sets: Prisma.Sql[] = [Prisma.sql`modified = (now() AT TIME ZONE 'UTC')`];
  if (data.url !== undefined) sets.push(Prisma.sql`url = ${data.url}`);
  if (data.eventTypes !== undefined) sets.push(Prisma.sql`event_types = ${data.eventTypes}::text[]`);
  if (data.description !== undefined) sets.push(Prisma.sql`description = ${data.description}`);
  if (data.enabled === true) sets.push(Prisma.sql`enabled = true, disabled_reason = NULL, disabled_at = NULL, consecutive_failures = 0`);
  if (data.enabled === false) {
    sets.push(Prisma.sql`enabled = false, disabled_reason = CASE WHEN enabled THEN 'disabled by its owner' ELSE disabled_reason END,
                         disabled_at = CASE WHEN enabled THEN (now() AT TIME ZONE 'UTC') ELSE disabled_at END`);
  }
  const row = await changeEndpoint(ctx, id, async (tx) =>
    (await sqlOf(tx).query<Record<string, unknown>>(Prisma.sql`UPDATE webhook_endpoints SET ${Prisma.join(sets, ", ")} WHERE id = ${id} RETURNING ${ENDPOINT_COLUMNS}`))[0]!,
  );
  if (data.enabled === true) afterCommit(ctx, () => wakeWebhookSenders(ctx.db));
  return endpointOf(row);
}

/**
 * Replaces the endpoint's secret with a new one, answered this once. Every request from now on, retries of
 * earlier deliveries too, is signed with the new secret only (there is no overlap: update the receiver first
 * to accept either, as Standard Webhooks libraries can with two secrets).
 */
export async function rotateWebhookEndpointSecret(ctx: RequestContext, idValue: string | number): Promise<{ endpoint: EndpointRow; secret: string }> {
  const id = parseId(idValue);
  const secret = newSecret();
  const row = await changeEndpoint(ctx, id, async (tx) =>
    (await sqlOf(tx).query<Record<string, unknown>>(
      Prisma.sql`UPDATE webhook_endpoints SET secret = ${secret}, modified = (now() AT TIME ZONE 'UTC') WHERE id = ${id} RETURNING ${ENDPOINT_COLUMNS}`,
    ))[0]!,
  );
  return { endpoint: endpointOf(row), secret };
}

/** Deletes the endpoint with its deliveries and their attempts; answers its id. */
export async function deleteWebhookEndpoint(ctx: RequestContext, idValue: string | number): Promise<number> {
  const id = parseId(idValue);
  await changeEndpoint(ctx, id, (tx) => sqlOf(tx).query(Prisma.sql`DELETE FROM webhook_endpoints WHERE id = ${id}`));
  return id;
}

export function getWebhookEndpoint(ctx: RequestContext, idValue: string | number): Promise<EndpointRow> {
  return endpointFor(ctx, parseId(idValue), false);
}

/**
 * Endpoints the caller may see, newest first: administrators every one (or one scope's), others their own
 * (a scope's when given). Anonymous callers: 401.
 */
export function listWebhookEndpoints(ctx: RequestContext, args: PageArgs & { scope?: string | null; scopeId?: number | null }): Page<EndpointRow> {
  const user = requireUser(ctx);
  const { take, skip } = pageWindow(args);
  const filters: Prisma.Sql[] = [];
  if (args.scope != null) {
    if (args.scope !== "site" && args.scope !== "group") throw badInput("scope", "must be site or group");
    filters.push(Prisma.sql`scope = ${args.scope}`);
  }
  if (args.scopeId != null) filters.push(Prisma.sql`scope_id = ${args.scopeId}`);
  if (!user.isAdmin) filters.push(Prisma.sql`created_by = ${user.id} AND scope <> 'site'`);
  const where = filters.length ? Prisma.sql`WHERE ${Prisma.join(filters, " AND ")}` : Prisma.empty;
  const sql = sqlOf(ctx);
  return {
    items: async () => (await sql.query<Record<string, unknown>>(Prisma.sql`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints ${where} ORDER BY id DESC LIMIT ${take} OFFSET ${skip}`)).map(endpointOf),
    total: async () => (await sql.query<{ total: number }>(Prisma.sql`SELECT count(*)::int AS total FROM webhook_endpoints ${where}`))[0]!.total,
  };
}

const DELIVERY_COLUMNS = Prisma.sql`d.id::text AS id, d.endpoint_id AS "endpointId", d.event_id::text AS "eventId", d.event_type AS "eventType", d.body, d.state,
  d.attempts AS "attemptCount", d.next_attempt_at AS "nextAttemptAt", d.last_status AS "lastStatus", d.last_error AS "lastError", d.created, d.completed_at AS "completedAt"`;

/** Deliveries' rows with their latest attempts (one statement for the page's attempts). */
async function withAttempts(ctx: RequestContext, rows: Record<string, unknown>[]): Promise<DeliveryRow[]> {
  const ids = rows.map((row) => row.id as string);
  const attempts = ids.length
    ? await sqlOf(ctx).query<Record<string, unknown>>(Prisma.sql`
        SELECT delivery_id::text AS "deliveryId", id::text AS id, attempted_at AS "attemptedAt", outcome, status, duration_ms AS "durationMs", response, error, replay
          FROM (SELECT a.*, row_number() OVER (PARTITION BY delivery_id ORDER BY id DESC) AS n FROM webhook_attempts a WHERE delivery_id = ANY(${ids}::bigint[])) AS latest
         WHERE n <= ${MAX_ATTEMPTS_SHOWN} ORDER BY latest.id DESC`)
    : [];
  const byDelivery = new Map<string, AttemptRow[]>();
  for (const { deliveryId, ...attempt } of attempts) {
    const list = byDelivery.get(deliveryId as string) ?? [];
    list.push({ ...(attempt as unknown as AttemptRow), attemptedAt: date(attempt.attemptedAt)! });
    byDelivery.set(deliveryId as string, list);
  }
  return rows.map((row) => ({
    ...(row as unknown as DeliveryRow),
    webhookId: messageId(row.eventId as string, row.endpointId as number),
    nextAttemptAt: date(row.nextAttemptAt)!,
    created: date(row.created)!,
    completedAt: date(row.completedAt),
    attempts: byDelivery.get(row.id as string) ?? [],
  }));
}

/** An endpoint's deliveries, newest first, with their attempts: for its owner and administrators. */
export async function listWebhookDeliveries(ctx: RequestContext, args: PageArgs & { endpointId: string | number; state?: string | null }): Promise<Page<DeliveryRow>> {
  const endpointId = parseId(args.endpointId, "endpointId");
  await endpointFor(ctx, endpointId, false);
  if (args.state != null && !(DELIVERY_STATES as readonly string[]).includes(args.state)) throw badInput("state", `must be one of ${DELIVERY_STATES.join(", ")}`);
  const { take, skip } = pageWindow(args);
  const where = Prisma.sql`d.endpoint_id = ${endpointId}${args.state != null ? Prisma.sql` AND d.state = ${args.state}` : Prisma.empty}`;
  const sql = sqlOf(ctx);
  return {
    items: async () => withAttempts(ctx, await sql.query(Prisma.sql`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d WHERE ${where} ORDER BY d.id DESC LIMIT ${take} OFFSET ${skip}`)),
    total: async () => (await sql.query<{ total: number }>(Prisma.sql`SELECT count(*)::int AS total FROM webhook_deliveries d WHERE ${where}`))[0]!.total,
  };
}

/**
 * Sends a delivery again now, with the same `webhook-id` and body (whatever its state): it is pending again,
 * with a retry window of its own from now. The endpoint must be enabled (409 naming `id` otherwise).
 */
export async function replayWebhookDelivery(ctx: RequestContext, idValue: string | number): Promise<DeliveryRow> {
  const id = parseId(idValue);
  const [found] = await sqlOf(ctx).query<{ endpointId: number }>(Prisma.sql`SELECT endpoint_id AS "endpointId" FROM webhook_deliveries WHERE id = ${id}`);
  if (!found) throw notFound(`Webhook delivery ${id} not found.`);
  const row = await changeEndpoint(ctx, found.endpointId, async (tx, endpoint) => {
    if (!endpoint.enabled) throw conflict("id", `Its endpoint ${endpoint.id} is disabled (${endpoint.disabledReason ?? "no reason recorded"}): enable it first.`);
    const [replayed] = await sqlOf(tx).query<Record<string, unknown>>(Prisma.sql`
      UPDATE webhook_deliveries d SET state = 'pending', next_attempt_at = (now() AT TIME ZONE 'UTC'), retry_from = (now() AT TIME ZONE 'UTC'),
             lease_until = NULL, completed_at = NULL, replay_requested = true
       WHERE d.id = ${id} RETURNING ${DELIVERY_COLUMNS}`);
    // Gone since it was found (its endpoint's purge): as if never there.
    if (!replayed) throw notFound(`Webhook delivery ${id} not found.`);
    return replayed;
  });
  afterCommit(ctx, () => wakeWebhookSenders(ctx.db));
  return (await withAttempts(ctx, [row]))[0]!;
}

/**
 * A deleted group takes its endpoints with it (their deliveries and attempts go by the foreign keys): an
 * endpoint of a group that is gone has nobody left who manages it (src/common/scope-content.ts). Endpoints emit no
 * domain events, so none is written for them.
 */
registerScopeContent({
  area: "webhooks",
  models: ["WebhookEndpoint"],
  remove: async (tx, { scope, scopeId }) => (await sqlOf(tx).query(Prisma.sql`DELETE FROM webhook_endpoints WHERE scope = ${scope} AND scope_id = ${scopeId} RETURNING id`)).length,
});
