import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Webhook, WebhookVerificationError } from "standardwebhooks";
import { Prisma } from "../generated/prisma/client.js";
import { sqlClientOf } from "../db/sql.js";
import type { StoredEvent } from "../common/outbox.js";
import { startServer, type Cast, type TestServer } from "../../test/server.js";
import { allEventsReadable } from "../../test/outbox.js";
import { allowedRanges, checkDestination, RefusedDestination } from "./addresses.js";
import { FIRST_RETRY_DELAY_MS, MAX_RETRY_DELAY_MS, purgeWebhookDeliveries, queueDeliveries, startWebhookSender, type WebhookSender } from "./delivery.js";
import { MAX_ENDPOINTS_PER_SCOPE, newSecret } from "./service.js";
import { sendSigned } from "./send.js";
import { Readable } from "node:stream";
import { runCli } from "../cli/program.js";
import { loadConfig } from "../config.js";
import { skipUnlessPostgres } from "../../test/postgres-only.js";

/**
 * Webhooks end to end (docs/events.md, "Webhooks"): a real server over a real database, and a receiver this
 * file starts on 127.0.0.1, allowed by WEBHOOK_ALLOWED_ADDRESSES. The app's own sender is replaced by one
 * on a clock the tests move (`clock.offset`), so retries and the whole day-long schedule run without waiting.
 */

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** What the receiver does for a path: answer a status (after `delayMs`), or never answer (`hang`). */
type Behaviour = { status: number; delayMs?: number; headers?: Record<string, string>; body?: string } | "hang";

const received: Received[] = [];
const behaviour = new Map<string, Behaviour[]>();
let receiver: http.Server;
let base = "";
const hanging = new Set<http.ServerResponse>();

/** The receiver answers `path` with these, in turn (the last one from then on). */
const answer = (path: string, ...answers: Behaviour[]) => behaviour.set(path, answers);
const at = (path: string) => received.filter((request) => request.path === path);

let server: TestServer;
let cast: Cast;
const clock = { offset: 0 };
const now = () => new Date(Date.now() + clock.offset);
let sender: WebhookSender;
const TIMEOUT_MS = 400;
const sql = () => sqlClientOf(server.app.db.prisma);

const senderFor = (overrides: { webhookDisableAfterFailures?: number; webhookAllowedAddresses?: string[] } = {}) =>
  startWebhookSender({
    db: server.app.db.prisma,
    config: { ...serverConfig(), ...overrides },
    pollMs: 0,
    log: () => {},
    now,
    counted: { attempted: (outcome) => counted.attempts.push(outcome), failed: () => void counted.failed++, disabled: () => void counted.disabled++ },
  });
/** What the test's sender counted for /metrics (the server's own sender counts into its registry the same way). */
const counted = { attempts: [] as string[], failed: 0, disabled: 0 };
const serverConfig = () => ({
  webhookAllowedAddresses: ["127.0.0.1"],
  webhookTimeoutMs: TIMEOUT_MS,
  webhookRetryHours: 24,
  webhookDisableAfterFailures: 100,
  webhookConcurrency: 4,
});

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      const path = req.url ?? "/";
      received.push({ path, headers: req.headers, body });
      const answers = behaviour.get(path) ?? [{ status: 204 }];
      const next = answers.length > 1 ? answers.shift()! : answers[0]!;
      if (next === "hang") return void hanging.add(res);
      setTimeout(() => res.writeHead(next.status, next.headers).end(next.body ?? `answer ${next.status} to ${path}`), next.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  server = await startServer(serverConfig());
  cast = await server.cast("webhookers");
  // The app's sender runs on the real clock: this file's runs on one the tests move.
  await server.app.webhooks.stop();
  sender = senderFor();
});

afterAll(async () => {
  await sender?.stop();
  for (const res of hanging) res.destroy();
  await server?.close();
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve));
});

afterEach(async () => {
  // Each test's endpoints go (their deliveries with them), so later events are not sent to them.
  await sql().query(Prisma.sql`DELETE FROM webhook_endpoints`);
  clock.offset = 0;
});

const graphql = <T = any>(query: string, variables: Record<string, unknown> = {}, token?: string) => server.graphqlText<T>(query, variables, token);

const CREATE = `mutation ($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { secret endpoint { id url enabled eventTypes scope scopeId } } }`;
const DELIVERIES = `query ($id: ID!, $state: String) { webhookDeliveries(endpointId: $id, state: $state, limit: 100) { total items {
  id eventId webhookId state attemptCount nextAttemptAt payload lastStatus completedAt attempts { outcome status durationMs response error replay attemptedAt } } } }`;
const ENDPOINT = `query ($id: ID!) { webhookEndpoint(id: $id) { id enabled disabledReason consecutiveFailures } }`;

async function endpoint(path: string, options: { token?: string; types?: string[]; scope?: string; scopeId?: number } = {}): Promise<{ id: string; secret: string }> {
  const result = await graphql(
    CREATE,
    { input: { url: `${base}${path}`, eventTypes: options.types ?? ["wiki.pageCreated"], scope: options.scope ?? "site", scopeId: options.scopeId ?? 0 } },
    options.token ?? cast.admin.token,
  );
  expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
  expect(result.data.createWebhookEndpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  return { id: result.data.createWebhookEndpoint.endpoint.id, secret: result.data.createWebhookEndpoint.secret };
}

/** A wiki page written through the API (its `wiki.pageCreated` event); in a group when `groupId` is given. */
async function page(title: string, options: { token?: string; groupId?: number } = {}): Promise<number> {
  const body = { title, pagetext: "Text.", state: 1, ...(options.groupId ? { scope: "group", scope_id: options.groupId } : {}) };
  const created = await server.rest("POST", "/wiki", { token: options.token ?? cast.alice.token, body });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.id as number;
}

/** Queues what was written (the dispatcher's consumer) and sends what is due on the test's clock. */
async function deliver(): Promise<void> {
  await allEventsReadable(sql());
  await server.app.dispatcher.flush();
  await sender.flush();
}

async function deliveries(endpointId: string, token = cast.admin.token) {
  const result = await graphql(DELIVERIES, { id: endpointId }, token);
  expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
  return result.data.webhookDeliveries.items as any[];
}

/** Whether `promise` settles within `ms` (a request that waits for a lock does not). */
const settledWithin = (promise: Promise<unknown>, ms: number) =>
  Promise.race([promise.then(() => true, () => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms))]);

/** Moves the clock to when the delivery is next due, and sends. */
async function untilDue(deliveryId: string): Promise<void> {
  const [row] = await sql().query<{ due: string }>(Prisma.sql`SELECT next_attempt_at::text AS due FROM webhook_deliveries WHERE id = ${deliveryId}::bigint`);
  clock.offset = new Date(`${row!.due.replace(" ", "T")}Z`).getTime() - Date.now() + 1;
  await sender.flush();
}

describe("signing (Standard Webhooks)", () => {
  it("sends the event with webhook-id, webhook-timestamp and a signature that verifies with the endpoint's secret, and not with another", async () => {
    const hook = await endpoint("/signed");
    const pageId = await page("Signed page");
    await deliver();
    const [request, ...more] = at("/signed");
    expect(more).toEqual([]);
    const headers = { "webhook-id": String(request!.headers["webhook-id"]), "webhook-timestamp": String(request!.headers["webhook-timestamp"]), "webhook-signature": String(request!.headers["webhook-signature"]) };
    expect(headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(Math.abs(Number(headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(30);
    const verified = new Webhook(hook.secret).verify(request!.body, headers) as { type: string; timestamp: string; data: StoredEvent };
    expect(verified).toMatchObject({ type: "wiki.pageCreated", data: { type: "wiki.pageCreated", area: "wiki", recordId: pageId, actorId: cast.alice.id, scope: "site" } });
    expect(headers["webhook-id"]).toBe(`msg_${verified.data.id}_${hook.id}`);
    expect(() => new Webhook(newSecret()).verify(request!.body, headers)).toThrow(WebhookVerificationError);
    // A body changed on the way fails too.
    expect(() => new Webhook(hook.secret).verify(request!.body.replace("Signed page", "Forged page"), headers)).toThrow(WebhookVerificationError);
    const [delivery] = await deliveries(hook.id);
    expect(delivery).toMatchObject({ state: "delivered", attemptCount: 1, webhookId: headers["webhook-id"], payload: request!.body, lastStatus: 204 });
    expect(delivery.attempts).toEqual([expect.objectContaining({ outcome: "delivered", status: 204, response: "", error: null, replay: false })]);
    expect(counted.attempts).toContain("delivered");
  });
});

describe("waking", () => {
  it("sends as soon as the batch that queued a delivery commits, without a poll (this sender never polls)", async () => {
    await endpoint("/woken");
    await page("Woken page");
    await allEventsReadable(sql());
    await server.app.dispatcher.flush();
    for (const started = Date.now(); !at("/woken").length; ) {
      if (Date.now() - started > 5000) throw new Error("the sender was not woken by the consumer's commit");
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await sender.flush();
  });
});

describe("retries", () => {
  it("retries after a 500, under the same webhook-id, about 5 s later, and records each attempt with its answer's excerpt", async () => {
    answer("/flaky", { status: 500 }, { status: 200 });
    const hook = await endpoint("/flaky");
    await page("Flaky page");
    await deliver();
    expect(at("/flaky")).toHaveLength(1);
    let [delivery] = await deliveries(hook.id);
    expect(delivery).toMatchObject({ state: "pending", attemptCount: 1, lastStatus: 500 });
    const wait = new Date(delivery.nextAttemptAt).getTime() - Date.now();
    expect(wait).toBeGreaterThan(FIRST_RETRY_DELAY_MS * 0.8 - 1000);
    expect(wait).toBeLessThanOrEqual(FIRST_RETRY_DELAY_MS * 1.2);
    // Not yet due: nothing is sent.
    await sender.flush();
    expect(at("/flaky")).toHaveLength(1);
    await untilDue(delivery.id);
    expect(at("/flaky")).toHaveLength(2);
    expect(new Set(at("/flaky").map((request) => request.headers["webhook-id"])).size).toBe(1);
    [delivery] = await deliveries(hook.id);
    expect(delivery).toMatchObject({ state: "delivered", attemptCount: 2, lastStatus: 200 });
    expect(delivery.attempts.map((attempt: any) => [attempt.outcome, attempt.status, attempt.response])).toEqual([
      ["delivered", 200, "answer 200 to /flaky"],
      ["http_error", 500, "answer 500 to /flaky"],
    ]);
  });

  it("retries after a timeout (WEBHOOK_TIMEOUT_MS)", async () => {
    answer("/slow", { status: 200, delayMs: TIMEOUT_MS * 3 }, { status: 200 });
    const hook = await endpoint("/slow");
    await page("Slow page");
    await deliver();
    let [delivery] = await deliveries(hook.id);
    expect(delivery).toMatchObject({ state: "pending", attemptCount: 1, lastStatus: null });
    expect(delivery.attempts[0]).toMatchObject({ outcome: "timeout", status: null, error: `no complete answer within ${TIMEOUT_MS} ms` });
    expect(delivery.attempts[0].durationMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
    expect(delivery.attempts[0].durationMs).toBeLessThan(TIMEOUT_MS * 3);
    await untilDue(delivery.id);
    [delivery] = await deliveries(hook.id);
    expect(delivery).toMatchObject({ state: "delivered", attemptCount: 2 });
    expect(new Set(at("/slow").map((request) => request.headers["webhook-id"])).size).toBe(1);
  });

  it("walks the whole schedule on the injected clock: delays doubling from 5 s up to an hour, for at least 24 hours, then failed", async () => {
    answer("/down", { status: 503 });
    const hook = await endpoint("/down");
    await page("Page nobody receives");
    await deliver();
    const [first] = await deliveries(hook.id);
    for (let round = 0; round < 200; round++) {
      const [row] = await sql().query<{ state: string }>(Prisma.sql`SELECT state FROM webhook_deliveries WHERE id = ${first.id}::bigint`);
      if (row!.state !== "pending") break;
      await untilDue(first.id);
    }
    const [delivery] = await deliveries(hook.id);
    expect(delivery.state).toBe("failed");
    expect(counted.failed).toBe(1);
    const times = delivery.attempts.map((attempt: any) => new Date(attempt.attemptedAt).getTime()).reverse() as number[];
    expect(delivery.attemptCount).toBe(at("/down").length);
    expect(times.length).toBe(Math.min(delivery.attemptCount, 50));
    const span = times.at(-1)! - times[0]!;
    expect(span).toBeGreaterThanOrEqual(24 * 3600_000);
    // Not much more than a day either: the last attempt is the first one due after the window.
    expect(span).toBeLessThan(24 * 3600_000 + MAX_RETRY_DELAY_MS * 1.2 + 1000);
    const delays = times.slice(1).map((time, index) => time - times[index]!);
    for (const [index, delay] of delays.entries()) {
      const plain = Math.min(MAX_RETRY_DELAY_MS, FIRST_RETRY_DELAY_MS * 2 ** index);
      expect(delay).toBeGreaterThanOrEqual(plain * 0.8 - 50);
      expect(delay).toBeLessThanOrEqual(plain * 1.2 + 1000);
    }
    expect(delays.filter((delay) => delay > MAX_RETRY_DELAY_MS * 0.8).length).toBeGreaterThan(15);
    expect(new Date(delivery.completedAt).getTime()).toBeGreaterThanOrEqual(times.at(-1)! - 1000);
    // Failed for good: however late, it is not sent again (one failed delivery does not disable the endpoint at 100).
    clock.offset += 7 * 24 * 3600_000;
    await sender.flush();
    expect(at("/down")).toHaveLength(delivery.attemptCount);
    expect((await graphql(ENDPOINT, { id: hook.id }, cast.admin.token)).data.webhookEndpoint).toMatchObject({ enabled: true, consecutiveFailures: delivery.attemptCount });
  });

  it("keeps the first KB of an answer as its excerpt, NUL bytes and all (PostgreSQL text holds none: the attempt was not recorded)", async () => {
    answer("/binary", { status: 500, body: `\u0000binary${"x".repeat(5000)}` });
    const hook = await endpoint("/binary");
    await page("Binary answer");
    await deliver();
    const [delivery] = await deliveries(hook.id);
    expect(delivery.attempts).toHaveLength(1);
    expect(delivery.attempts[0].response).toBe(`\uFFFDbinary${"x".repeat(1024 - 7)}`);
  });
});

describe("disabling", () => {
  it("disables an endpoint after WEBHOOK_DISABLE_AFTER_FAILURES failed attempts in a row; it queues nothing while disabled, and enabled again sends what waited", async () => {
    await sender.stop();
    sender = senderFor({ webhookDisableAfterFailures: 3 });
    try {
      answer("/dying", { status: 500 });
      const hook = await endpoint("/dying");
      for (const title of ["Dying 1", "Dying 2", "Dying 3"]) await page(title);
      await deliver();
      expect(at("/dying")).toHaveLength(3);
      const state = (await graphql(ENDPOINT, { id: hook.id }, cast.admin.token)).data.webhookEndpoint;
      expect(state).toMatchObject({ enabled: false, disabledReason: "3 failed attempts in a row", consecutiveFailures: 3 });
      expect(counted.disabled).toBe(1);
      // Disabled: due or not, nothing is sent, and new events are not queued for it.
      await page("Dying 4");
      clock.offset += 3600_000;
      await deliver();
      expect(at("/dying")).toHaveLength(3);
      expect(await deliveries(hook.id)).toHaveLength(3);
      const [waiting] = await deliveries(hook.id);
      const replay = await graphql(`mutation ($id: ID!) { replayWebhookDelivery(id: $id) { id } }`, { id: waiting.id }, cast.admin.token);
      expect(replay.errors?.[0]?.extensions).toMatchObject({ code: "CONFLICT", errors: [{ parameter: "id", message: expect.stringContaining("is disabled (3 failed attempts in a row): enable it first") }] });
      answer("/dying", { status: 200 });
      const enabled = await graphql(`mutation ($id: ID!) { updateWebhookEndpoint(id: $id, input: { enabled: true }) { enabled disabledReason consecutiveFailures } }`, { id: hook.id }, cast.admin.token);
      expect(enabled.data.updateWebhookEndpoint).toEqual({ enabled: true, disabledReason: null, consecutiveFailures: 0 });
      await sender.flush();
      expect(at("/dying")).toHaveLength(6);
      expect((await deliveries(hook.id)).map((delivery) => delivery.state)).toEqual(["delivered", "delivered", "delivered"]);
    } finally {
      await sender.stop();
      sender = senderFor();
    }
  });
});

describe("who sees what", () => {
  it("shows an endpoint's deliveries and attempts to its owner and administrators only", async () => {
    const hook = await endpoint("/group", { token: cast.manager.token, scope: "group", scopeId: cast.groupId });
    await page("Group page", { token: cast.member.token, groupId: cast.groupId });
    await deliver();
    expect(await deliveries(hook.id, cast.manager.token)).toHaveLength(1);
    expect(await deliveries(hook.id, cast.admin.token)).toHaveLength(1);
    for (const token of [cast.alice.token, cast.member.token]) {
      const refused = await graphql(DELIVERIES, { id: hook.id }, token);
      expect(refused.errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
      expect((await graphql(ENDPOINT, { id: hook.id }, token)).errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
      const listed = await graphql(`{ webhookEndpoints { total items { id } } }`, {}, token);
      expect(listed.data.webhookEndpoints).toEqual({ total: 0, items: [] });
    }
    expect((await graphql(DELIVERIES, { id: hook.id })).errors?.[0]?.extensions?.code).toBe("UNAUTHENTICATED");
    expect((await graphql(`{ webhookEndpoints { total items { id } } }`, {}, cast.manager.token)).data.webhookEndpoints).toEqual({ total: 1, items: [{ id: hook.id }] });
  });

  it("lets only administrators register site endpoints, and only a group's managers (and administrators) its endpoints", async () => {
    const site = { url: `${base}/x`, eventTypes: ["wiki.pageCreated"], scope: "site", scopeId: 0 };
    expect((await graphql(CREATE, { input: site }, cast.manager.token)).errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
    expect((await graphql(CREATE, { input: site })).errors?.[0]?.extensions?.code).toBe("UNAUTHENTICATED");
    const group = { ...site, scope: "group", scopeId: cast.groupId };
    expect((await graphql(CREATE, { input: group }, cast.member.token)).errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
    expect((await graphql(CREATE, { input: group }, cast.admin.token)).errors).toBeUndefined();
    const unknown = await graphql(CREATE, { input: { ...site, eventTypes: ["wiki.pageCreated", "wiki.nothing"] } }, cast.admin.token);
    expect(unknown.errors?.[0]?.extensions?.errors?.[0]).toEqual({ parameter: "eventTypes", message: expect.stringContaining("wiki.nothing is not an event type") });
  });

  it(`keeps a scope at ${MAX_ENDPOINTS_PER_SCOPE} endpoints when registrations race (409 naming scope for the others)`, async () => {
    const site = (index: number) => ({ url: `${base}/race-${index}`, eventTypes: ["wiki.pageCreated"], scope: "site", scopeId: 0 });
    for (let index = 0; index < MAX_ENDPOINTS_PER_SCOPE - 1; index++) expect((await graphql(CREATE, { input: site(index) }, cast.admin.token)).errors).toBeUndefined();
    // One place left, ten asking for it at once.
    const answers = await Promise.all(Array.from({ length: 10 }, (_, index) => graphql(CREATE, { input: site(100 + index) }, cast.admin.token)));
    expect(answers.filter((answer) => !answer.errors)).toHaveLength(1);
    for (const refused of answers.filter((answer) => answer.errors)) expect(refused.errors![0]!.extensions?.errors?.[0]?.parameter, JSON.stringify(refused.errors)).toBe("scope");
    const [{ count }] = (await sql().query<{ count: number }>(Prisma.sql`SELECT count(*)::int AS count FROM webhook_endpoints WHERE scope = 'site'`)) as [{ count: number }];
    expect(count).toBe(MAX_ENDPOINTS_PER_SCOPE);
  });

  it("decides a change on the owner's management as it stands when the change is made: a change racing the owner's demotion is refused, or made before it", async (context) => {
    skipUnlessPostgres(context, "a change racing a demotion", "PGlite runs one transaction at a time: every request waits for the open one anyway");
    const hook = await endpoint("/demoted", { token: cast.manager.token, scope: "group", scopeId: cast.groupId });
    const UPDATE = `mutation ($id: ID!, $input: UpdateWebhookEndpointInput!) { updateWebhookEndpoint(id: $id, input: $input) { id description } }`;
    // The demotion holds the manager's membership row until it commits: a change that read "manages" before
    // the commit and wrote after it was the race. Now the change waits for the row and reads it after.
    let racing!: ReturnType<typeof graphql>;
    await sql().transaction(async (tx) => {
      await tx.query(Prisma.sql`UPDATE group_members SET manager = false WHERE group_id = ${cast.groupId} AND user_id = ${cast.manager.id}`);
      racing = graphql(UPDATE, { id: hook.id, input: { description: "changed while demoted" } }, cast.manager.token);
      expect(await settledWithin(racing, 300)).toBe(false);
    });
    expect((await racing).errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
    const [row] = await sql().query<{ description: string }>(Prisma.sql`SELECT description FROM webhook_endpoints WHERE id = ${Number(hook.id)}`);
    expect(row!.description).toBe("");
    await sql().query(Prisma.sql`UPDATE group_members SET manager = true WHERE group_id = ${cast.groupId} AND user_id = ${cast.manager.id}`);
  });

  it("leaves no endpoint behind when a manager registers one as their group is deleted: the registration waits for the deletion and is refused", async (context) => {
    skipUnlessPostgres(context, "a registration racing a group's deletion", "PGlite runs one transaction at a time");
    const doomed = await server.app.db.prisma.group.create({ data: { cn: "doomedhooks", title: "Doomed hooks", createdById: cast.manager.id } });
    await server.app.db.prisma.groupMember.create({ data: { groupId: doomed.id, userId: cast.manager.id, status: "member", manager: true } });
    let racing!: ReturnType<typeof graphql>;
    // As the group's deletion does (src/groups/area.ts, writes.removes): the group's row locked, each area's content removed, the group deleted.
    await sql().transaction(async (tx) => {
      await tx.query(Prisma.sql`SELECT 1 FROM groups WHERE id = ${doomed.id} FOR UPDATE`);
      await tx.query(Prisma.sql`DELETE FROM webhook_endpoints WHERE scope = 'group' AND scope_id = ${doomed.id}`);
      racing = graphql(CREATE, { input: { url: `${base}/doomed`, eventTypes: ["wiki.pageCreated"], scope: "group", scopeId: doomed.id } }, cast.manager.token);
      expect(await settledWithin(racing, 300)).toBe(false);
      await tx.query(Prisma.sql`DELETE FROM groups WHERE id = ${doomed.id}`);
    });
    expect((await racing).errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
    expect(await sql().query(Prisma.sql`SELECT id FROM webhook_endpoints WHERE scope = 'group' AND scope_id = ${doomed.id}`)).toEqual([]);
  });

  it("tells a caller who may not register in a scope only that, before it looks their URL up (no address check for them)", async () => {
    const input = { url: "http://10.1.2.3/hook", eventTypes: ["wiki.pageCreated"], scope: "group", scopeId: cast.groupId };
    const refused = await graphql(CREATE, { input }, cast.member.token);
    expect(refused.errors?.[0]?.extensions?.code, JSON.stringify(refused.errors)).toBe("FORBIDDEN");
    const hook = await endpoint("/mine", { token: cast.manager.token, scope: "group", scopeId: cast.groupId });
    const UPDATE = `mutation ($id: ID!, $input: UpdateWebhookEndpointInput!) { updateWebhookEndpoint(id: $id, input: $input) { id } }`;
    const notTheirs = await graphql(UPDATE, { id: hook.id, input: { url: "http://10.1.2.3/hook" } }, cast.member.token);
    expect(notTheirs.errors?.[0]?.extensions?.code, JSON.stringify(notTheirs.errors)).toBe("FORBIDDEN");
  });

  it("queues for a group endpoint only its group's events, and sends and queues nothing once its owner no longer manages the group (then it is disabled)", async () => {
    const hook = await endpoint("/owned", { token: cast.manager.token, scope: "group", scopeId: cast.groupId });
    const retried = await endpoint("/owned-retried", { token: cast.manager.token, scope: "group", scopeId: cast.groupId });
    answer("/owned-retried", { status: 500 });
    const inGroup = await page("In the group", { token: cast.member.token, groupId: cast.groupId });
    await page("On the site");
    await deliver();
    expect(at("/owned").map((request) => JSON.parse(request.body).data.recordId)).toEqual([inGroup]);
    expect(at("/owned-retried")).toHaveLength(1);
    await sql().query(Prisma.sql`UPDATE group_members SET manager = false WHERE group_id = ${cast.groupId} AND user_id = ${cast.manager.id}`);
    try {
      // What was queued before is not sent to a former manager either, however due.
      clock.offset += 3600_000;
      await sender.flush();
      expect(at("/owned-retried")).toHaveLength(1);
      expect((await deliveries(retried.id)).map((delivery) => delivery.state)).toEqual(["pending"]);
      await page("After the demotion", { token: cast.member.token, groupId: cast.groupId });
      await deliver();
      expect(at("/owned")).toHaveLength(1);
      expect(await deliveries(hook.id)).toHaveLength(1);
      const state = (await graphql(ENDPOINT, { id: hook.id }, cast.admin.token)).data.webhookEndpoint;
      expect(state).toMatchObject({ enabled: false, disabledReason: "its owner no longer manages the group" });
      // Nor may they enable it again, or replay what it had.
      const enabling = await graphql(`mutation ($id: ID!) { updateWebhookEndpoint(id: $id, input: { enabled: true }) { enabled } }`, { id: hook.id }, cast.manager.token);
      expect(enabling.errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
    } finally {
      await sql().query(Prisma.sql`UPDATE group_members SET manager = true WHERE group_id = ${cast.groupId} AND user_id = ${cast.manager.id}`);
    }
  });

  it("hides an anonymous record's actor from a group endpoint's owner, not from the administrators' site endpoint, and the record's author from both", async () => {
    await endpoint("/anonymous-group", { token: cast.manager.token, scope: "group", scopeId: cast.groupId, types: ["wiki.pageUpdated"] });
    await endpoint("/anonymous-site", { types: ["wiki.pageUpdated"] });
    const pageId = await page("Anonymous page", { token: cast.member.token, groupId: cast.groupId });
    await deliver();
    // No area has anonymous records yet: the event a future one would append, handed to the consumer as the dispatcher does.
    const event: StoredEvent = {
      id: "8000000001", xid: "1", type: "wiki.pageUpdated", area: "wiki", recordId: pageId, actorId: cast.member.id, anonymous: true,
      scope: "group", scopeId: cast.groupId, visibility: "public", published: true, audience: "readers", subjectId: null, authorId: cast.member.id, changed: ["title"], payload: { id: pageId }, occurredAt: new Date(),
    };
    await sql().transaction((tx) => queueDeliveries(server.app.db.prisma, [event], tx));
    await sender.flush();
    const [toGroup] = at("/anonymous-group").map((request) => JSON.parse(request.body).data);
    const [toSite] = at("/anonymous-site").map((request) => JSON.parse(request.body).data);
    expect(toGroup).toMatchObject({ id: event.id, anonymous: true, actorId: null });
    expect(toSite).toMatchObject({ id: event.id, anonymous: true, actorId: cast.member.id });
    // The author is the server's reading of who is told of a deletion (D13), delivered to nobody.
    expect([toGroup, toSite].filter((data) => "authorId" in data)).toEqual([]);
  });
});

describe("purge", () => {
  it("deletes deliveries delivered or failed before WEBHOOK_RETENTION_HOURS, with their attempts, and keeps pending ones however old", async () => {
    answer("/purged-pending", { status: 500 });
    const done = await endpoint("/purged-done");
    const pending = await endpoint("/purged-pending");
    await page("Purged page");
    await deliver();
    await sql().query(Prisma.sql`UPDATE webhook_deliveries SET created = created - interval '30 days', completed_at = completed_at - interval '30 days', retry_from = retry_from - interval '30 days'`);
    expect(await purgeWebhookDeliveries(server.app.db.prisma, 24 * 7)).toBe(1);
    expect(await deliveries(done.id)).toEqual([]);
    expect(await sql().query(Prisma.sql`SELECT 1 FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.endpoint_id = ${Number(done.id)}`)).toEqual([]);
    expect((await deliveries(pending.id)).map((delivery) => delivery.state)).toEqual(["pending"]);
  });
});

describe("what the owner may read", () => {
  it("queues nothing about a record its owner may not read (a hidden group's page they are no member of)", async () => {
    const hidden = await server.app.db.prisma.group.create({ data: { cn: `hiddenhooks${Date.now().toString(36)}`, title: "Hidden", discoverability: 1 } });
    await server.app.db.prisma.groupMember.create({ data: { groupId: hidden.id, userId: cast.alice.id, status: "member" } });
    const secret = await page("Hidden page", { token: cast.alice.token, groupId: hidden.id });
    const group = await endpoint("/unreadable-group", { token: cast.manager.token, scope: "group", scopeId: cast.groupId, types: ["wiki.pageUpdated"] });
    await endpoint("/unreadable-site", { types: ["wiki.pageUpdated"] });
    await deliver();
    // An event that names the manager's group but is about the hidden page: what an area's mistake, or a
    // record moved out of the group, could produce. The owner's right to read the record decides, not the scope.
    const event: StoredEvent = {
      id: "8000000002", xid: "1", type: "wiki.pageUpdated", area: "wiki", recordId: secret, actorId: cast.alice.id, anonymous: false,
      scope: "group", scopeId: cast.groupId, visibility: "public", published: true, audience: "readers", subjectId: null, changed: ["title"], payload: { id: secret }, occurredAt: new Date(),
    };
    expect(await sql().transaction((tx) => queueDeliveries(server.app.db.prisma, [event], tx))).toBe(1);
    await sender.flush();
    expect(at("/unreadable-group")).toEqual([]);
    expect(await deliveries(group.id)).toEqual([]);
    expect(at("/unreadable-site").map((request) => JSON.parse(request.body).data.recordId)).toEqual([secret]);
  });
});

describe("rotating the secret", () => {
  it("answers a new secret once; later requests, retries included, are signed with it and not the old one; only the owner and administrators may", async () => {
    answer("/rotated", { status: 500 }, { status: 200 });
    const hook = await endpoint("/rotated");
    await page("Rotated page");
    await deliver();
    const rotated = await graphql(`mutation ($id: ID!) { rotateWebhookEndpointSecret(id: $id) { secret endpoint { id } } }`, { id: hook.id }, cast.admin.token);
    const secret = rotated.data.rotateWebhookEndpointSecret.secret as string;
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(hook.secret);
    const [delivery] = await deliveries(hook.id);
    await untilDue(delivery.id);
    clock.offset = 0;
    const [before, after] = at("/rotated").map((request) => ({ body: request.body, headers: request.headers as Record<string, string> }));
    expect(() => new Webhook(hook.secret).verify(before!.body, before!.headers)).not.toThrow();
    // The retry is signed with the new secret (its timestamp is the test clock's, checked apart from the signature).
    const signed = new Webhook(secret).sign(after!.headers["webhook-id"]!, new Date(Number(after!.headers["webhook-timestamp"]) * 1000), after!.body);
    expect(after!.headers["webhook-signature"]).toBe(signed);
    expect(after!.headers["webhook-signature"]).not.toBe(new Webhook(hook.secret).sign(after!.headers["webhook-id"]!, new Date(Number(after!.headers["webhook-timestamp"]) * 1000), after!.body));
    const refused = await graphql(`mutation ($id: ID!) { rotateWebhookEndpointSecret(id: $id) { secret } }`, { id: hook.id }, cast.alice.token);
    expect(refused.errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
  });
});

describe("replay", () => {
  it("sends a delivered delivery again at once, with the same webhook-id and body, recorded as a replay", async () => {
    const hook = await endpoint("/replayed");
    await page("Replayed page");
    await deliver();
    const [delivery] = await deliveries(hook.id);
    const replayed = await graphql(`mutation ($id: ID!) { replayWebhookDelivery(id: $id) { id state } }`, { id: delivery.id }, cast.admin.token);
    expect(replayed.data.replayWebhookDelivery).toEqual({ id: delivery.id, state: "pending" });
    await sender.flush();
    const requests = at("/replayed");
    expect(requests).toHaveLength(2);
    expect(requests[1]!.headers["webhook-id"]).toBe(requests[0]!.headers["webhook-id"]);
    expect(requests[1]!.body).toBe(requests[0]!.body);
    const [after] = await deliveries(hook.id);
    expect(after).toMatchObject({ state: "delivered", attemptCount: 2 });
    expect(after.attempts.map((attempt: any) => attempt.replay)).toEqual([true, false]);
    const refused = await graphql(`mutation ($id: ID!) { replayWebhookDelivery(id: $id) { id } }`, { id: delivery.id }, cast.alice.token);
    expect(refused.errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
  });
});

describe("where requests may go (SSRF)", () => {
  const refusedUrls = [
    "http://127.0.0.2/", // loopback, not the allowed 127.0.0.1
    "http://[::1]/",
    "http://[::ffff:127.0.0.2]/", // IPv4-mapped IPv6
    "http://[::ffff:10.0.0.1]/",
    "http://10.1.2.3/",
    "http://172.16.0.1/",
    "http://192.168.1.1/",
    "http://169.254.169.254/latest/meta-data/", // the metadata service
    "http://[fd00:ec2::254]/",
    "http://[fe80::1]/",
    "http://100.64.0.1/",
    "http://0.0.0.0/",
    "http://224.0.0.1/",
    "http://255.255.255.255/",
    "http://0x7f.0.0.2/", // 127.0.0.2 spelled otherwise
    "http://[::169.254.169.254]/", // IPv4-compatible IPv6 (::/96), which ipaddr.js calls unicast
    "http://[::7f00:2]/",
  ];

  it.each(refusedUrls)("refuses to register %s: 400 naming url", async (url) => {
    const result = await graphql(CREATE, { input: { url, eventTypes: ["wiki.pageCreated"], scope: "site", scopeId: 0 } }, cast.admin.token);
    expect(result.errors?.[0]?.extensions?.errors?.[0]).toEqual({ parameter: "url", message: expect.stringMatching(/non-public address/) });
  });

  it.each(["ftp://example.com/", "http://user:secret@example.com/", "not a url"])("refuses %s: 400 naming url", async (url) => {
    const result = await graphql(CREATE, { input: { url, eventTypes: ["wiki.pageCreated"], scope: "site", scopeId: 0 } }, cast.admin.token);
    expect(result.errors?.[0]?.extensions?.errors?.[0]?.parameter).toBe("url");
  });

  it("refuses 127.0.0.1 and its IPv4-mapped IPv6 form without the allowance, and lets them through with it", async () => {
    for (const url of ["http://127.0.0.1/", "http://[::ffff:127.0.0.1]/", "http://[::ffff:7f00:1]/"]) {
      await expect(checkDestination(url, [])).rejects.toThrow(RefusedDestination);
      await expect(checkDestination(url, allowedRanges(["127.0.0.1"]))).resolves.toMatchObject({ address: expect.stringMatching(/127\.0\.0\.1|7f00:1/) });
    }
    await expect(checkDestination("http://[::1]/", allowedRanges(["127.0.0.0/8"]))).rejects.toThrow(RefusedDestination);
    await expect(checkDestination("http://localhost/", [])).rejects.toThrow(/localhost resolves to .*loopback/);
    await expect(checkDestination("http://93.184.216.34/", [])).resolves.toMatchObject({ address: "93.184.216.34", family: 4 });
  });

  it("checks again at every send: an endpoint whose address is no longer allowed is not sent to (the attempt is `refused`)", async () => {
    const hook = await endpoint("/no-longer-allowed");
    await sender.stop();
    sender = senderFor({ webhookAllowedAddresses: [] });
    try {
      await page("Refused at send");
      await deliver();
      expect(at("/no-longer-allowed")).toHaveLength(0);
      const [delivery] = await deliveries(hook.id);
      expect(delivery.attempts[0]).toMatchObject({ outcome: "refused", status: null, error: expect.stringContaining("127.0.0.1: loopback") });
    } finally {
      await sender.stop();
      sender = senderFor();
    }
  });

  it("refuses a host name when any of its addresses is private, and connects to the very address it checked (no DNS rebinding)", async () => {
    const port = (receiver.address() as AddressInfo).port;
    const mixed = async () => [{ address: "93.184.216.34", family: 4 }, { address: "10.0.0.7", family: 4 }];
    await expect(checkDestination("http://mixed.example/", [], mixed as never)).rejects.toThrow(/mixed\.example resolves to 10\.0\.0\.7/);
    // A host that answers 127.0.0.1 (allowed) when checked, and a private address to any later lookup.
    let lookups = 0;
    const rebinding = async () => (lookups++ === 0 ? [{ address: "127.0.0.1", family: 4 }] : [{ address: "10.0.0.7", family: 4 }]);
    const result = await sendSigned({
      url: `http://rebinding.example:${port}/rebinding`, secret: newSecret(), msgId: "msg_rebinding", body: "{}", timestamp: new Date(), timeoutMs: 2000,
      allowed: allowedRanges(["127.0.0.1"]), resolve: rebinding as never,
    });
    expect(result).toMatchObject({ outcome: "delivered", status: 204 });
    expect(lookups).toBe(1);
    expect(at("/rebinding")).toHaveLength(1);
    expect(at("/rebinding")[0]!.headers.host).toBe(`rebinding.example:${port}`);
  });

  it("follows no redirect: a 3xx is a failed attempt, and its target gets nothing", async () => {
    answer("/moved", { status: 302, headers: { location: `${base}/moved-to` } });
    const hook = await endpoint("/moved");
    await page("Moved page");
    await deliver();
    expect(at("/moved")).toHaveLength(1);
    expect(at("/moved-to")).toHaveLength(0);
    const [delivery] = await deliveries(hook.id);
    expect(delivery).toMatchObject({ state: "pending", lastStatus: 302 });
    expect(delivery.attempts[0]).toMatchObject({ outcome: "http_error", status: 302, error: `redirect to ${base}/moved-to not followed` });
  });
});

describe("a receiver that is down", () => {
  it("slows no write: the consumer makes no request, and writes answer while every request hangs", async () => {
    answer("/hanging", "hang");
    await endpoint("/hanging");
    const sending = (async () => {
      await page("First while hanging");
      await deliver();
    })();
    const started = performance.now();
    for (let index = 0; index < 5; index++) await page(`Write ${index} while hanging`);
    await allEventsReadable(sql());
    await server.app.dispatcher.flush();
    expect(performance.now() - started).toBeLessThan(TIMEOUT_MS * 5);
    await sending;
    for (const res of hanging) res.destroy();
    hanging.clear();
  });
});

describe("the command line", () => {
  /** Runs one `hubgraph` command in this process on the test server's database, 127.0.0.1 allowed as for the server. */
  async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    let stdout = "";
    let stderr = "";
    const code = await runCli(
      args,
      { stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text), stdin: Readable.from([""]), env: process.env },
      { database: server.app.db, config: { ...loadConfig(), ...serverConfig() } },
    );
    return { code, stdout, stderr };
  }

  it("creates an endpoint (its secret printed once), lists it and its deliveries, replays one, disables, enables and deletes it", async () => {
    const created = await cli(["webhooks", "create", `${base}/cli`, "--events", "wiki.pageCreated, wiki.pageUpdated", "--description", "From the console"]);
    expect(created.code, created.stderr).toBe(0);
    const id = /^webhook endpoint (\d+): /m.exec(created.stdout)![1]!;
    const secret = /^secret: (whsec_\S+)$/m.exec(created.stdout)![1]!;
    expect(created.stderr).toContain("shown only now");
    await page("Console page");
    await deliver();
    const [request] = at("/cli");
    expect(() => new Webhook(secret).verify(request!.body, request!.headers as Record<string, string>)).not.toThrow();

    const listed = await cli(["webhooks", "list"]);
    expect(listed.stdout).toMatch(new RegExp(`^${id}\\s+site\\s+yes\\s+0\\s+${base}/cli\\s+wiki.pageCreated,wiki.pageUpdated$`, "m"));
    expect(listed.stdout).not.toContain("whsec_");
    const deliveriesOut = await cli(["webhooks", "deliveries", id, "--json"]);
    const [delivery] = JSON.parse(deliveriesOut.stdout) as { id: string; state: string; webhookId: string; attempts: unknown[] }[];
    expect(delivery).toMatchObject({ state: "delivered", webhookId: request!.headers["webhook-id"], attempts: [expect.objectContaining({ outcome: "delivered" })] });
    expect((await cli(["webhooks", "deliveries", id])).stdout).toMatch(new RegExp(`^${delivery!.id}\\s+\\d+\\s+wiki.pageCreated\\s+delivered\\s+1\\s+204`, "m"));

    const replayed = await cli(["webhooks", "replay", delivery!.id]);
    expect(replayed.stdout).toContain(`delivery ${delivery!.id} (${delivery!.webhookId}) is sent again now`);
    await sender.flush();
    expect(at("/cli").map((each) => each.headers["webhook-id"])).toEqual([delivery!.webhookId, delivery!.webhookId]);

    const rotated = await cli(["webhooks", "rotate-secret", id]);
    expect(rotated.stdout).toMatch(/^secret: whsec_\S+$/m);
    expect(rotated.stdout).not.toContain(secret);
    expect((await cli(["webhooks", "disable", id])).stdout).toContain(`webhook endpoint ${id} disabled`);
    expect((await cli(["webhooks", "list"])).stdout).toContain("no: disabled by its owner");
    expect((await cli(["webhooks", "enable", id])).stdout).toContain(`webhook endpoint ${id} enabled`);
    expect((await cli(["webhooks", "delete", id])).stdout).toContain(`webhook endpoint ${id} deleted`);
    expect((await cli(["webhooks", "list"])).stdout).toContain("no webhook endpoints");
  });

  it("names the bad argument: a private URL, an unknown event type; a group endpoint needs an owner who manages the group", async () => {
    const privateUrl = await cli(["webhooks", "create", "http://10.0.0.1/hook", "--events", "wiki.pageCreated"]);
    expect(privateUrl.code).toBe(1);
    expect(privateUrl.stderr).toMatch(/^error: <url> must not reach a loopback, private, link-local or other non-public address \(10\.0\.0\.1: private\)/);
    expect(privateUrl.stderr).toContain("WEBHOOK_ALLOWED_ADDRESSES");
    const badType = await cli(["webhooks", "create", `${base}/cli`, "--events", "wiki.nothing"]);
    expect(badType.code).toBe(1);
    expect(badType.stderr).toContain("--events wiki.nothing is not an event type");
    expect(badType.stderr).toMatch(/the wiki event types are .*wiki\.pageCreated.*wiki\.pageUpdated/);
    expect((await cli(["webhooks", "create", `${base}/cli`, "--events", "wiki.pageCreated", "--group", String(cast.groupId)])).code).toBe(2);
    const notManager = await cli(["webhooks", "create", `${base}/cli`, "--events", "wiki.pageCreated", "--group", String(cast.groupId), "--owner", cast.alice.username]);
    expect(notManager).toMatchObject({ code: 1, stderr: "error: Only the group's managers can manage its webhook endpoints.\n" });
    const managed = await cli(["webhooks", "create", `${base}/cli-group`, "--events", "wiki.pageCreated", "--group", String(cast.groupId), "--owner", cast.manager.username]);
    expect(managed.code, managed.stderr).toBe(0);
    expect((await cli(["webhooks", "list", "--group", String(cast.groupId)])).stdout).toContain(`group ${cast.groupId}`);
  });
});
