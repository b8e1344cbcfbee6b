import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type Cast, type TestServer } from "../../test/server.js";

/**
 * The sender as the server runs it (src/webhooks/delivery.ts), on its own clock: retries come due without a
 * write to wake it, even with OUTBOX_POLL_MS = 0; and one endpoint whose receiver never answers holds no
 * more than its share of the sending places, so another endpoint's delivery does not wait behind it.
 */
describe("the webhook sender in a running server", () => {
  const received: { path: string; at: number }[] = [];
  const answers = new Map<string, number[]>();
  const hanging: http.ServerResponse[] = [];
  let receiver: http.Server;
  let base = "";
  let server: TestServer;
  let cast: Cast;

  beforeAll(async () => {
    receiver = http.createServer((request, response) => {
      request.resume();
      request.on("end", () => {
        const path = request.url ?? "/";
        received.push({ path, at: Date.now() });
        if (path === "/hang") return void hanging.push(response);
        const planned = answers.get(path) ?? [204];
        response.writeHead(planned.length > 1 ? planned.shift()! : planned[0]!).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    server = await startServer({ outboxPollMs: 0, webhookAllowedAddresses: ["127.0.0.1"], webhookTimeoutMs: 3000, webhookConcurrency: 4, webhookDisableAfterFailures: 1000 });
    cast = await server.cast("senders");
  });
  afterAll(async () => {
    for (const response of hanging) response.destroy();
    await server?.close();
    receiver.closeAllConnections();
    receiver.close();
  });

  const register = async (path: string, types: string[]) => {
    const response = await fetch(`${server.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${cast.admin.token}` },
      body: JSON.stringify({
        query: `mutation($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { endpoint { id } } }`,
        variables: { input: { url: `${base}${path}`, eventTypes: types, scope: "site", scopeId: 0 } },
      }),
    });
    expect(((await response.json()) as { errors?: unknown }).errors).toBeUndefined();
  };
  const write = async (title: string) => {
    const created = await server.rest("POST", "/wiki", { token: cast.alice.token, body: { title, pagetext: "Text.", state: 1 } });
    expect(created.status).toBe(201);
    return created.body.id as number;
  };
  async function until(done: () => boolean, ms: number) {
    for (const started = Date.now(); !done(); ) {
      if (Date.now() - started > ms) throw new Error(`not within ${ms} ms`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  it("retries a failed delivery when it comes due, with OUTBOX_POLL_MS = 0 and no write to wake it", async () => {
    answers.set("/flaky", [500, 204]);
    await register("/flaky", ["wiki.pageCreated"]);
    await write("Flaky receiver");
    await until(() => received.some((request) => request.path === "/flaky"), 10_000);
    // Due again about 5 s later (± a fifth): found by the sender's own clock.
    await until(() => received.filter((request) => request.path === "/flaky").length >= 2, 10_000);
  }, 30_000);

  it("gives a receiver that never answers no more than its share of the places: another endpoint's delivery goes out at once", async () => {
    await register("/hang", ["wiki.pageUpdated"]);
    await register("/healthy", ["wiki.pageDeleted"]);
    const pages = [];
    for (let index = 0; index < 12; index++) pages.push(await write(`Updated for a hanging receiver ${index}`));
    for (const id of pages) expect((await server.rest("PATCH", `/wiki/${id}`, { token: cast.alice.token, body: { pagetext: "Changed." } })).status).toBe(200);
    await until(() => received.some((request) => request.path === "/hang"), 5000);
    const deletedAt = Date.now();
    expect((await server.rest("DELETE", `/wiki/${pages[0]}`, { token: cast.alice.token })).status).toBe(204);
    await until(() => received.some((request) => request.path === "/healthy"), 10_000);
    // Twelve deliveries that each hold a place for 3 s on 4 places would have kept it waiting 6 s or more.
    expect(received.find((request) => request.path === "/healthy")!.at - deletedAt).toBeLessThan(2000);
    // The hanging receiver held one place at a time (4 places: a share of 1).
    expect(received.filter((request) => request.path === "/hang").length).toBeLessThanOrEqual(2);
  }, 30_000);
});
