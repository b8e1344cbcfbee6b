import type { PrismaClient } from "../generated/prisma/client.js";
import { sqlClientOf } from "../db/sql.js";
import type { StoredEvent } from "../common/outbox.js";
import { DEFAULT_BUDGET_MS, enabledRecords, registeredPlugins, runIsolated } from "./registry.js";
import "./installed.js";

/**
 * THE HOOK THE OUTBOX DISPATCHER CALLS, once per committed domain event (src/common/outbox.ts,
 * `readCommittedEvents`), in the order it reads them:
 *
 *   await deliverToPlugins(db, event)
 *
 * It runs, one after another, the listeners that plugins registered for `event.type` (src/plugins/installed/),
 * of those plugins whose record (matched by folder and element) is enabled at delivery time. Each listener
 * runs within its time budget (`budgetMs`, default 2 s) and in isolation: one that throws or overruns is
 * logged and counted (`hubgraph_plugin_failures_total`) and the others still run. It never throws for a
 * listener's sake, so the dispatcher may move its cursor past the event when it resolves; it throws only when
 * the plugin records cannot be read (the database is down): then the dispatcher should retry the event later.
 * Delivery may be repeated (a retry, a crash before the cursor moved): listeners are idempotent by `event.id`
 * (the notifications are unique on event and recipient), so a redelivered event writes nothing twice.
 */
export async function deliverToPlugins(db: PrismaClient, event: StoredEvent, options: { budgetMs?: number } = {}): Promise<void> {
  const listening = registeredPlugins().filter((plugin) => plugin.listeners?.[event.type]);
  if (!listening.length) return;
  const sql = sqlClientOf(db);
  for (const { plugin, params } of await enabledRecords(sql, listening)) {
    const listener = plugin.listeners![event.type]!;
    await runIsolated(plugin, event.type, options.budgetMs ?? DEFAULT_BUDGET_MS, (signal) => listener(event, { sql, params, signal }));
  }
}
