import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  listWebhookDeliveries,
  listWebhookEndpoints,
  replayWebhookDelivery,
  rotateWebhookEndpointSecret,
  updateWebhookEndpoint,
  type EndpointRow,
} from "../webhooks/service.js";
import { contextAs, counted, findUserOrFail, operatorContext, service, usageError, type CliRun } from "./context.js";

/**
 * Webhook endpoints from the console, through the webhooks service (src/webhooks/service.ts) and so under
 * its rules: as the operator (an administrator) for site endpoints, as `--owner` for a group's (they must
 * manage it; the endpoint receives what they may read). The secret is printed once, when made.
 */

const ARGUMENTS = { url: "<url>", eventTypes: "--events", scopeId: "--group", description: "--description", id: "<id>", endpointId: "<endpoint-id>", state: "--state", limit: "--limit" };

/** Prints rows as aligned columns, the first row a header. */
function table(run: CliRun, rows: string[][]): void {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  for (const row of rows) run.say(row.map((cell, column) => cell.padEnd(widths[column]!)).join("  ").trimEnd());
}

const groupId = (value: string | undefined): number | undefined => {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1) throw usageError(`--group must be a group's id (got "${value}")`);
  return Number(value);
};

export async function createWebhookCommand(run: CliRun, url: string, options: { events: string; group?: string; owner?: string; description?: string }): Promise<void> {
  const group = groupId(options.group);
  if (group !== undefined && !options.owner) throw usageError("a group endpoint needs --owner <username>: the manager whose rights it receives events with");
  if (group === undefined && options.owner) throw usageError("--owner goes with --group (site endpoints belong to the administrators)");
  const ctx = options.owner ? contextAs(run, await findUserOrFail(run, options.owner)) : operatorContext(run);
  const eventTypes = options.events.split(",").map((type) => type.trim()).filter(Boolean);
  const { endpoint, secret } = await service(
    createWebhookEndpoint(ctx, { url, eventTypes, scope: group === undefined ? "site" : "group", scopeId: group ?? 0, description: options.description }),
    ARGUMENTS,
  );
  run.say(`webhook endpoint ${endpoint.id}: ${endpoint.url} (${endpoint.scope === "site" ? "site-wide" : `group ${endpoint.scopeId}`}; ${endpoint.eventTypes.join(", ")})`);
  run.say(`secret: ${secret}`);
  run.io.stderr("the secret is shown only now: verify the requests' webhook-signature with it\n");
}

export async function listWebhooksCommand(run: CliRun, options: { group?: string; json?: boolean }): Promise<void> {
  const group = groupId(options.group);
  const page = listWebhookEndpoints(operatorContext(run), { scope: group === undefined ? undefined : "group", scopeId: group, limit: 0 });
  const endpoints: EndpointRow[] = await service(page.items());
  if (options.json) return run.say(JSON.stringify(endpoints));
  if (!endpoints.length) return run.say("no webhook endpoints");
  table(run, [
    ["ID", "SCOPE", "ENABLED", "FAILURES", "URL", "EVENTS"],
    ...endpoints.map((endpoint) => [
      String(endpoint.id),
      endpoint.scope === "site" ? "site" : `group ${endpoint.scopeId}`,
      endpoint.enabled ? "yes" : `no: ${endpoint.disabledReason ?? ""}`,
      String(endpoint.consecutiveFailures),
      endpoint.url,
      endpoint.eventTypes.join(","),
    ]),
  ]);
}

export async function rotateSecretCommand(run: CliRun, id: string): Promise<void> {
  const { endpoint, secret } = await service(rotateWebhookEndpointSecret(operatorContext(run), id), ARGUMENTS);
  run.say(`webhook endpoint ${endpoint.id}: new secret`);
  run.say(`secret: ${secret}`);
  run.io.stderr("the secret is shown only now; the old one no longer signs anything\n");
}

export async function deleteWebhookCommand(run: CliRun, id: string): Promise<void> {
  await service(deleteWebhookEndpoint(operatorContext(run), id), ARGUMENTS);
  run.say(`webhook endpoint ${id} deleted, with its deliveries`);
}

export async function enableWebhookCommand(run: CliRun, id: string, enabled: boolean): Promise<void> {
  const endpoint = await service(updateWebhookEndpoint(operatorContext(run), id, { enabled }), ARGUMENTS);
  run.say(`webhook endpoint ${endpoint.id} ${endpoint.enabled ? "enabled" : "disabled"}`);
}

export async function listDeliveriesCommand(run: CliRun, endpointId: string, options: { state?: string; limit?: string; json?: boolean }): Promise<void> {
  const limit = options.limit === undefined ? 25 : Number(options.limit);
  if (!Number.isInteger(limit) || limit < 1) throw usageError(`--limit must be a whole number of 1 or more (got "${options.limit}")`);
  const page = await service(listWebhookDeliveries(operatorContext(run), { endpointId, state: options.state, limit }), ARGUMENTS);
  const deliveries = await page.items();
  if (options.json) return run.say(JSON.stringify(deliveries));
  if (!deliveries.length) return run.say("no deliveries");
  table(run, [
    ["ID", "EVENT", "TYPE", "STATE", "ATTEMPTS", "LAST", "NEXT / DONE"],
    ...deliveries.map((delivery) => [
      delivery.id,
      delivery.eventId,
      delivery.eventType,
      delivery.state,
      String(delivery.attemptCount),
      delivery.lastStatus === null ? (delivery.lastError ?? "") : String(delivery.lastStatus),
      (delivery.state === "pending" ? delivery.nextAttemptAt : delivery.completedAt)?.toISOString() ?? "",
    ]),
  ]);
  run.io.stderr(`${counted(deliveries.length, "delivery", "deliveries")}, newest first\n`);
}

export async function replayWebhookCommand(run: CliRun, id: string): Promise<void> {
  const delivery = await service(replayWebhookDelivery(operatorContext(run), id), ARGUMENTS);
  run.say(`delivery ${delivery.id} (${delivery.webhookId}) is sent again now`);
}
