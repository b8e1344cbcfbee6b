import { Prisma } from "../generated/prisma/client.js";
import { isBusyDatabase, type SqlClient } from "../db/sql.js";
import { registerOutboxConsumer } from "../events/dispatcher.js";
import { publicEvent, type StoredEvent } from "../common/outbox.js";
import { DEFAULT_BUDGET_MS, enabledRecords, registeredPlugins, runIsolated } from "./registry.js";
import "./installed.js";

/**
 * Delivers one committed domain event to the plugins: the outbox dispatcher's `plugins` consumer (registered
 * below) calls it for each event of a batch, in order, inside the batch's transaction (`tx`), so the
 * listeners' writes commit with the consumer's cursor and a failed batch leaves none of them.
 *
 * It runs, one after another, the listeners that plugins registered for `event.type` (src/plugins/installed/),
 * of those plugins whose record (matched by folder and element) is enabled at delivery time. Each listener
 * runs within its time budget (`budgetMs`, default 2 s) and in isolation: under a savepoint, so one whose
 * statement fails (or that throws, or overruns) is rolled back alone, logged and counted
 * (`hubgraph_plugin_failures_total`), and the others still run; its client refuses statements once its budget
 * is over, so an overrunning listener cannot write into the batch later. It never throws for a listener's
 * sake; it throws only when the plugin records cannot be read, and then the dispatcher retries the batch.
 * Delivery may be repeated (a retry after a failed batch): listeners are idempotent by `event.id` (the
 * notifications are unique on event and recipient), so a redelivered event writes nothing twice.
 */
export async function deliverToPlugins(tx: SqlClient, event: StoredEvent, options: { budgetMs?: number } = {}): Promise<void> {
  const listening = pluginsListeningTo(event.type);
  if (!listening.length) return;
  const told = publicEvent(event);
  for (const { plugin, params } of await enabledRecords(tx, listening)) {
    const listener = plugin.listeners![event.type]!;
    await tx.query(Prisma.sql`SAVEPOINT plugin_listener`);
    const run = await runIsolated(plugin, event.type, options.budgetMs ?? DEFAULT_BUDGET_MS, (signal) => listener(told, { sql: untilAborted(tx, signal), params, signal }));
    // A listener that caught its own failed statement returns normally over an aborted savepoint: RELEASE
    // fails then, and its work is rolled back like a failure's, so the batch goes on.
    const released = run.ok && (await tx.query(Prisma.sql`RELEASE SAVEPOINT plugin_listener`).then(() => true, () => false));
    if (!released) await tx.query(Prisma.sql`ROLLBACK TO SAVEPOINT plugin_listener`);
    // A listener's own failure (it threw, or ran out of its budget) is not retried: a poison event must not
    // stop every plugin behind it. A failure of the database's making is, with the whole batch (the other
    // listeners are idempotent by event id): the dispatcher hands it over again after its delay.
    if (!run.ok && isTransientDatabaseError(run.error)) {
      throw new Error(`plugin ${plugin.folder}.${plugin.element} met a passing database failure on ${event.type}: the batch is retried`, { cause: run.error });
    }
  }
}

/**
 * Failures that say nothing about the listener: a lock or statement the database gave up waiting for
 * (lock_timeout), a deadlock or serialization failure, the server out of resources or the connection lost.
 * Not a statement cut off by the budget's statement_timeout (57014): that is the listener's overrun.
 */
function isTransientDatabaseError(error: unknown): boolean {
  return isBusyDatabase(error) && (error as { code?: string })?.code !== "57014";
}

/** The registered plugins with a listener for `type` (enabled or not: their records decide). */
const pluginsListeningTo = (type: StoredEvent["type"]) => registeredPlugins().filter((plugin) => plugin.listeners?.[type]);

/** `sql`, refusing statements once `signal` has fired (a listener past its budget). */
function untilAborted(sql: SqlClient, signal: AbortSignal): SqlClient {
  return {
    query: (statement) => (signal.aborted ? Promise.reject(new Error("the listener's time budget is over")) : sql.query(statement)),
    transaction: () => Promise.reject(new Error("a listener runs inside the dispatcher's transaction")),
  };
}

/** The dispatcher's consumer that runs the plugins' listeners (src/events/dispatcher.ts). */
export const PLUGINS_CONSUMER = registerOutboxConsumer({
  name: "plugins",
  async handle(events, tx) {
    // A statement of a listener's still running when its budget ends is cut off by the server: the budget
    // rejects only statements sent after it, and ROLLBACK TO SAVEPOINT would wait for a running one, up to
    // the pool's statement_timeout (30 s), holding back every outbox reader meanwhile.
    if (events.some((event) => pluginsListeningTo(event.type).length)) {
      await tx.query(Prisma.sql`SELECT set_config('statement_timeout', ${String(DEFAULT_BUDGET_MS)}, true)`);
    }
    for (const event of events) await deliverToPlugins(tx, event);
  },
});
