import { Prisma, type PrismaClient } from "../generated/prisma/client.js";
import { backgroundSqlOf, decodeTimestamp, utcTimestamp, type SqlClient } from "../db/sql.js";
import type { Viewer } from "../common/context.js";
import type { StoredEvent } from "../common/outbox.js";
import { recordScopeSql } from "../common/scope-kinds.js";
import { registerOutboxConsumer } from "../events/dispatcher.js";
import { readableBy, shownTo, viewerKey } from "../events/subscriptions.js";
import type { Config } from "../config.js";
import { allowedRanges } from "./addresses.js";
import { sendSigned, type AttemptOutcome, type AttemptResult } from "./send.js";

/**
 * Webhook delivery in two stages (docs/events.md, "Webhooks"; docs/decisions.md, "Webhooks"), so that a
 * receiver that is down or slow never slows a write nor holds up the dispatcher:
 *
 * 1. The outbox consumer `webhooks` (registered below) queues, inside the dispatcher's transaction, one
 *    `webhook_deliveries` row per event and enabled endpoint that wants it — its type among the endpoint's,
 *    a group endpoint's only for its group's events — and whose owner may read it now (`readableBy`, as
 *    subscriptions do: a site endpoint's owner is the administrators, a group endpoint's the manager who
 *    registered it, while they still manage the group). The body is frozen then, the event as that owner
 *    may see it (`shownTo`: an anonymous record's actor hidden). No request is made here; a redelivered
 *    batch queues nothing twice (unique per endpoint and event).
 * 2. The sender (`startWebhookSender`, one per server) claims due deliveries — a lease, not a lock held
 *    over the request — sends them outside any transaction, at most WEBHOOK_CONCURRENCY at once, records
 *    each attempt, and marks the delivery delivered, due again later (doubling delays), or failed once its
 *    retry window is over. A server killed in the middle leaves the lease to expire: the delivery is due
 *    again, under the same `webhook-id`.
 */

/** The first retry's delay; each later one doubles, up to MAX_RETRY_DELAY_MS, with ±20 % jitter. */
export const FIRST_RETRY_DELAY_MS = 5_000;
export const MAX_RETRY_DELAY_MS = 3_600_000;
/** A claimed delivery's lease lasts the request's timeout and this much more: longer than any attempt can. */
const LEASE_MARGIN_MS = 5_000;

/** The `webhook-id` of a delivery: the same on every attempt and replay, and per endpoint and event. */
export const messageId = (eventId: string, endpointId: number) => `msg_${eventId}_${endpointId}`;

/** The delay before the attempt after `attempts` failed ones: 5 s doubling up to an hour, ±20 % (so endpoints recovering are not hit all at once). */
export function retryDelayMs(attempts: number, random = Math.random): number {
  const plain = Math.min(MAX_RETRY_DELAY_MS, FIRST_RETRY_DELAY_MS * 2 ** Math.max(0, attempts - 1));
  return Math.round(plain * (0.8 + 0.4 * random()));
}

/** The administrators, as whom a site endpoint receives events (every administrator manages site endpoints). */
const ADMINISTRATORS: Viewer = { user: { id: 0, username: "administrators", isAdmin: true }, via: "token" };

/** The body every attempt of a delivery sends (Standard Webhooks' `type`, `timestamp`, `data`). */
export function deliveryBody(event: StoredEvent): string {
  const { cursor: _cursor, xid: _xid, ...data } = event as StoredEvent & { cursor?: string };
  return JSON.stringify({ type: event.type, timestamp: event.occurredAt.toISOString(), data: { ...data, occurredAt: event.occurredAt.toISOString() } });
}

/**
 * Whether the endpoint `e` may still receive: a site endpoint (its owner is the administrators), or a group
 * endpoint whose owner is an administrator or still manages its group (its scope kind's `managers`).
 * Asked when deliveries are queued and again when they are claimed.
 */
const ownerMayReceiveSql = () =>
  Prisma.sql`(e.scope = 'site' OR EXISTS (SELECT 1 FROM users owner WHERE owner.id = e.created_by AND owner.is_admin)
    OR ${recordScopeSql(Prisma.sql`e.scope`, Prisma.sql`e.scope_id`, "managers", Prisma.sql`e.created_by`) ?? Prisma.sql`FALSE`})`;

interface CandidateEndpoint {
  id: number;
  scope: string;
  scopeId: number;
  eventTypes: string[];
  ownerId: number | null;
  ownerName: string | null;
  ownerIsAdmin: boolean;
  /** A group endpoint's owner manages the group now (or is an administrator). */
  ownerManages: boolean;
}

/** Queues the batch's deliveries (stage 1, above): through `tx`, the dispatcher's transaction. */
export async function queueDeliveries(db: PrismaClient, events: StoredEvent[], tx: SqlClient): Promise<number> {
  const types = [...new Set(events.map((event) => event.type))];
  const groups = [...new Set(events.filter((event) => event.scope === "group").map((event) => event.scopeId))];
  const endpoints = await tx.query<CandidateEndpoint>(Prisma.sql`
    SELECT e.id, e.scope, e.scope_id AS "scopeId", e.event_types AS "eventTypes", e.created_by AS "ownerId", u.username AS "ownerName",
           COALESCE(u.is_admin, false) AS "ownerIsAdmin", ${ownerMayReceiveSql()} AS "ownerManages"
      FROM webhook_endpoints e LEFT JOIN users u ON u.id = e.created_by
     WHERE e.enabled AND e.event_types && ${types}::text[] AND (e.scope = 'site' OR (e.scope = 'group' AND e.scope_id = ANY(${groups}::int[])))`);
  if (!endpoints.length) return 0;
  // A group endpoint whose owner no longer manages the group (or is gone) receives nothing more: it is
  // disabled, with the reason, in this transaction; a manager (or an administrator) may enable it again.
  const orphaned = endpoints.filter((endpoint) => endpoint.scope !== "site" && !endpoint.ownerManages);
  if (orphaned.length) {
    await tx.query(Prisma.sql`UPDATE webhook_endpoints SET enabled = false, disabled_at = (now() AT TIME ZONE 'UTC'),
                                     disabled_reason = 'its owner no longer manages the group', modified = (now() AT TIME ZONE 'UTC')
                               WHERE id = ANY(${orphaned.map((endpoint) => endpoint.id)}::int[]) AND enabled`);
  }
  const live = endpoints.filter((endpoint) => endpoint.scope === "site" || endpoint.ownerManages);
  const viewerOf = (endpoint: CandidateEndpoint): Viewer =>
    endpoint.scope === "site" ? ADMINISTRATORS : { user: { id: endpoint.ownerId!, username: endpoint.ownerName!, isAdmin: endpoint.ownerIsAdmin }, via: "token" };
  const wanted = live.map((endpoint) => ({
    endpoint,
    viewer: viewerOf(endpoint),
    events: events.filter((event) => endpoint.eventTypes.includes(event.type) && (endpoint.scope === "site" || (event.scope === endpoint.scope && event.scopeId === endpoint.scopeId))),
  }));
  const concerned = [...new Set(wanted.flatMap((entry) => entry.events))];
  if (!concerned.length) return 0;
  const readable = await readableBy(db, [...new Map(wanted.map((entry) => [viewerKey(entry.viewer), entry.viewer])).values()], concerned, tx);
  const rows: { endpointId: number; eventId: string; type: string; body: string }[] = [];
  for (const { endpoint, viewer, events: candidates } of wanted) {
    const allowed = readable.get(viewerKey(viewer))!;
    for (const event of candidates) {
      if (allowed.has(event.id)) rows.push({ endpointId: endpoint.id, eventId: event.id, type: event.type, body: deliveryBody(shownTo(viewer, event)) });
    }
  }
  if (!rows.length) return 0;
  const queued = await tx.query<{ id: string }>(Prisma.sql`
    INSERT INTO webhook_deliveries (endpoint_id, event_id, event_type, body, next_attempt_at, retry_from)
    SELECT endpoint_id, event_id, event_type, body, now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC'
      FROM unnest(${rows.map((row) => row.endpointId)}::int[], ${rows.map((row) => row.eventId)}::bigint[], ${rows.map((row) => row.type)}::text[], ${rows.map((row) => row.body)}::text[])
           AS queued (endpoint_id, event_id, event_type, body)
    ON CONFLICT (endpoint_id, event_id) DO NOTHING
    RETURNING id::text AS id`);
  return queued.length;
}

/** The senders running on each database, woken when the consumer has queued deliveries. */
const senders = new WeakMap<PrismaClient, Set<() => void>>();

/** Wakes the senders running on `db` (a replay, an endpoint enabled again: something is due now). */
export function wakeWebhookSenders(db: PrismaClient): void {
  for (const wake of senders.get(db) ?? []) wake();
}

/** The dispatcher's consumer that queues webhook deliveries (src/events/dispatcher.ts). */
export const WEBHOOKS_CONSUMER = registerOutboxConsumer({
  name: "webhooks",
  async handle(events, tx, db) {
    await queueDeliveries(db, events, tx);
  },
  committed: wakeWebhookSenders,
});

export interface WebhookMetrics {
  attempted(outcome: AttemptOutcome): void;
  failed(): void;
  disabled(): void;
}

export interface WebhookSender {
  /** Claims and sends what is due now (the consumer's wake-up; the poll). */
  wake(): void;
  /** Sends until nothing is due and nothing is in flight (tests, with an injected clock). */
  flush(): Promise<void>;
  stop(): Promise<void>;
}

interface Claimed {
  id: string;
  endpointId: number;
  eventId: string;
  body: string;
  attempts: number;
  retryFrom: string;
  replay: boolean;
  url: string;
  secret: string;
}

/**
 * Stage 2 (above): one per server process. `now` is the clock every due time, lease and retry window is
 * reckoned by (tests inject one to walk the whole schedule); `pollMs` how often it looks for due deliveries
 * besides the consumer's wake-ups (0: only when woken or flushed).
 */
export function startWebhookSender(options: {
  db: PrismaClient;
  config: Pick<Config, "webhookAllowedAddresses" | "webhookTimeoutMs" | "webhookRetryHours" | "webhookDisableAfterFailures" | "webhookConcurrency">;
  pollMs: number;
  log: (line: string, error?: unknown) => void;
  /**
   * Each failed attempt, as a warning with its fields (endpoint, status or error, attempt, next try): a
   * receiver answering 500 is seen in the log, not only in the metrics (docs/operations.md).
   */
  warn?: (fields: Record<string, unknown>, line: string) => void;
  now?: () => Date;
  counted?: WebhookMetrics;
}): WebhookSender {
  const { db, config, pollMs, log, counted } = options;
  const warn = options.warn ?? (() => {});
  const now = options.now ?? (() => new Date());
  const sql = backgroundSqlOf(db);
  const allowed = allowedRanges(config.webhookAllowedAddresses);
  const inFlight = new Set<Promise<void>>();
  let claiming: Promise<void> | null = null;
  let again = false;
  let stopped = false;

  /** Deliveries this sender is sending now, and how many per endpoint. */
  const sending = new Map<string, number>();
  const perEndpoint = new Map<number, number>();
  /** An endpoint's share of the places: one that never answers can hold no more than this many of them. */
  const endpointShare = Math.max(1, Math.floor(config.webhookConcurrency / 4));

  const claim = async (limit: number): Promise<Claimed[]> => {
    const moment = now();
    const leaseUntil = new Date(moment.getTime() + config.webhookTimeoutMs + LEASE_MARGIN_MS);
    const full = [...perEndpoint].filter(([, count]) => count >= endpointShare).map(([endpoint]) => endpoint);
    // SKIP LOCKED and the lease: with several instances each due delivery goes to one of them; one whose
    // sender died mid-request (its lease past) is due again. Per endpoint at most its share of the places
    // (less what this sender already sends to it): a receiver that is down, or a backlog of one endpoint,
    // cannot hold every place while other endpoints' deliveries wait.
    return sql.query<Claimed>(Prisma.sql`
      WITH due AS (
        SELECT pick.id, pick.replay_requested FROM webhook_endpoints e
         CROSS JOIN LATERAL (
           SELECT d.id, d.replay_requested, d.next_attempt_at FROM webhook_deliveries d
            WHERE d.endpoint_id = e.id AND d.state = 'pending' AND d.next_attempt_at <= ${utcTimestamp(moment)}
              AND (d.lease_until IS NULL OR d.lease_until < ${utcTimestamp(moment)}) AND d.id <> ALL(${[...sending.keys()]}::bigint[])
            ORDER BY d.next_attempt_at, d.id
            LIMIT ${endpointShare}
            FOR UPDATE SKIP LOCKED) pick
         WHERE e.enabled AND e.id <> ALL(${full}::int[])
           -- A group endpoint's deliveries go out only while its owner manages the group (or is an administrator), as when they were queued.
           AND ${ownerMayReceiveSql()}
         ORDER BY pick.next_attempt_at, pick.id
         LIMIT ${limit}),
      claimed AS (
        UPDATE webhook_deliveries d SET lease_until = ${utcTimestamp(leaseUntil)}, attempts = d.attempts + 1, replay_requested = false
          FROM due WHERE d.id = due.id
        RETURNING d.id, d.endpoint_id, d.event_id, d.body, d.attempts, d.retry_from, due.replay_requested AS replay)
      SELECT c.id::text AS id, c.endpoint_id AS "endpointId", c.event_id::text AS "eventId", c.body, c.attempts, c.retry_from AS "retryFrom", c.replay, e.url, e.secret
        FROM claimed c JOIN webhook_endpoints e ON e.id = c.endpoint_id`);
  };

  const record = async (delivery: Claimed, attemptedAt: Date, result: AttemptResult) => {
    const moment = now();
    const at = utcTimestamp(attemptedAt);
    const attempt = Prisma.sql`INSERT INTO webhook_attempts (delivery_id, attempted_at, outcome, status, duration_ms, response, error, replay)
      SELECT id, ${at}, ${result.outcome}, ${result.status}, ${result.durationMs}, ${result.response}, ${result.error}, ${delivery.replay} FROM webhook_deliveries WHERE id = ${delivery.id}::bigint`;
    if (result.outcome === "delivered") {
      counted?.attempted(result.outcome);
      await sql.query(Prisma.sql`
        WITH attempt AS (${attempt}),
             delivery AS (UPDATE webhook_deliveries SET state = 'delivered', lease_until = NULL, completed_at = ${utcTimestamp(moment)}, last_status = ${result.status}, last_error = NULL
                           WHERE id = ${delivery.id}::bigint AND state = 'pending')
        UPDATE webhook_endpoints SET consecutive_failures = 0 WHERE id = ${delivery.endpointId} AND consecutive_failures <> 0`);
      return;
    }
    counted?.attempted(result.outcome);
    // Failed: due again after the next delay, or failed for good once its retry window is over (so the
    // last attempt is at least WEBHOOK_RETRY_HOURS after the first).
    const windowEnd = decodeTimestamp(delivery.retryFrom).getTime() + config.webhookRetryHours * 3_600_000;
    const over = moment.getTime() >= windowEnd;
    const next = new Date(moment.getTime() + retryDelayMs(delivery.attempts));
    const limit = config.webhookDisableAfterFailures;
    const [row] = await sql.query<{ disabled: boolean }>(Prisma.sql`
      WITH attempt AS (${attempt}),
           delivery AS (UPDATE webhook_deliveries SET state = ${over ? "failed" : "pending"}, lease_until = NULL, next_attempt_at = ${utcTimestamp(next)},
                               completed_at = ${over ? utcTimestamp(moment) : null}::timestamp(3), last_status = ${result.status}, last_error = ${result.error}
                         WHERE id = ${delivery.id}::bigint AND state = 'pending' AND attempts = ${delivery.attempts}),
           endpoint AS (SELECT id, enabled FROM webhook_endpoints WHERE id = ${delivery.endpointId} FOR UPDATE)
      UPDATE webhook_endpoints e SET consecutive_failures = e.consecutive_failures + 1,
             enabled = e.enabled AND NOT (${limit} > 0 AND e.consecutive_failures + 1 >= ${limit}),
             disabled_at = CASE WHEN e.enabled AND ${limit} > 0 AND e.consecutive_failures + 1 >= ${limit} THEN ${utcTimestamp(moment)} ELSE e.disabled_at END,
             disabled_reason = CASE WHEN e.enabled AND ${limit} > 0 AND e.consecutive_failures + 1 >= ${limit}
                                    THEN ${`${limit} failed attempts in a row`} ELSE e.disabled_reason END
        FROM endpoint WHERE e.id = endpoint.id
      RETURNING endpoint.enabled AND NOT e.enabled AS disabled`);
    // The URL's origin only (its path and query may hold a receiver's token).
    const where = `${new URL(delivery.url).origin}`;
    const outcome = result.status !== null && result.status !== undefined ? `answered ${result.status}` : `failed: ${result.error ?? result.outcome}`;
    warn(
      {
        webhook: {
          endpoint: delivery.endpointId,
          origin: where,
          delivery: delivery.id,
          event: delivery.eventId,
          attempt: delivery.attempts,
          outcome: result.outcome,
          status: result.status ?? null,
          error: result.error ?? null,
          nextAttempt: over ? null : next.toISOString(),
        },
      },
      `webhook attempt ${delivery.attempts} of delivery ${delivery.id} (event ${delivery.eventId}) to endpoint ${delivery.endpointId} at ${where} ${outcome}; ${
        over ? "no more tries (its retry window is over)" : `next try at ${next.toISOString()} (in ${Math.round((next.getTime() - moment.getTime()) / 1000)} s)`
      }`,
    );
    if (over) {
      counted?.failed();
      log(`webhook delivery ${delivery.id} (event ${delivery.eventId}) to endpoint ${delivery.endpointId} at ${where} failed for good after ${delivery.attempts} attempts: ${result.error ?? result.outcome}`);
    }
    if (row?.disabled) {
      counted?.disabled();
      log(`webhook endpoint ${delivery.endpointId} at ${where} disabled after ${limit} failed attempts in a row (the last: ${result.error ?? result.outcome}); enable it again with updateWebhookEndpoint or the CLI`);
    }
  };

  const attempt = async (delivery: Claimed) => {
    const attemptedAt = now();
    const result = await sendSigned({
      url: delivery.url,
      secret: delivery.secret,
      msgId: messageId(delivery.eventId, delivery.endpointId),
      body: delivery.body,
      timestamp: attemptedAt,
      timeoutMs: config.webhookTimeoutMs,
      allowed,
    });
    await record(delivery, attemptedAt, result);
  };

  /** Claims as many due deliveries as there are free places, and starts them; again while places and due ones remain. */
  const fill = (): Promise<void> => {
    if (stopped) return Promise.resolve();
    if (claiming) {
      again = true;
      return claiming;
    }
    claiming = (async () => {
      do {
        again = false;
        const free = config.webhookConcurrency - inFlight.size;
        if (free <= 0) break;
        const claimed = await claim(free);
        for (const delivery of claimed) {
          sending.set(delivery.id, delivery.endpointId);
          perEndpoint.set(delivery.endpointId, (perEndpoint.get(delivery.endpointId) ?? 0) + 1);
          const running: Promise<void> = attempt(delivery)
            .catch((error: unknown) => log(`webhook delivery ${delivery.id} could not be recorded; its lease expires and it is sent again`, error))
            .finally(() => {
              inFlight.delete(running);
              sending.delete(delivery.id);
              const left = (perEndpoint.get(delivery.endpointId) ?? 1) - 1;
              if (left > 0) perEndpoint.set(delivery.endpointId, left);
              else perEndpoint.delete(delivery.endpointId);
              void fill();
            });
          inFlight.add(running);
        }
        if (claimed.length === free) again = true;
      } while (again && !stopped);
    })()
      .catch((error: unknown) => log("claiming webhook deliveries failed", error))
      .finally(() => {
        claiming = null;
      });
    return claiming;
  };

  const wake = () => void fill();
  let wakers = senders.get(db);
  if (!wakers) senders.set(db, (wakers = new Set()));
  wakers.add(wake);
  const poll = pollMs > 0 ? setInterval(wake, pollMs) : undefined;
  poll?.unref();
  wake();

  return {
    wake,
    async flush() {
      for (;;) {
        await fill();
        if (!inFlight.size) {
          // Whatever finished while the last claim ran may have left more due.
          await fill();
          if (!inFlight.size) return;
        }
        await Promise.all(inFlight);
      }
    },
    async stop() {
      stopped = true;
      clearInterval(poll);
      wakers.delete(wake);
      await claiming;
      await Promise.all(inFlight);
    },
  };
}

/** Deletes deliveries delivered or failed more than `retentionHours` ago, with their attempts (the purge timer). Answers how many. */
export async function purgeWebhookDeliveries(db: PrismaClient, retentionHours: number): Promise<number> {
  const [row] = await backgroundSqlOf(db).query<{ deleted: number }>(Prisma.sql`
    WITH gone AS (DELETE FROM webhook_deliveries WHERE state <> 'pending' AND completed_at < (now() AT TIME ZONE 'UTC') - make_interval(hours => ${retentionHours}) RETURNING 1)
    SELECT count(*)::int AS deleted FROM gone`);
  return row!.deleted;
}
