import { Counter } from "prom-client";
import { Prisma } from "../generated/prisma/client.js";
import type { SqlClient } from "../db/sql.js";
import { eventCatalogue, type EventType } from "../common/events.js";
import type { PublicEvent } from "../common/outbox.js";
import type { RequestContext } from "../common/context.js";
import type { Logger } from "../observability/logger.js";

/**
 * Plugins are code: one file each in src/plugins/installed/ (loaded by ./installed.ts, found by name), calling
 * `definePlugin` with its folder and element — the plugin record that enables it has the same two — and what
 * it registers:
 * - `listeners`: domain events (the catalogue, docs/events.md) it reacts to, run by `deliverToPlugins`
 *   (./deliver.ts) for each committed event while its record is enabled;
 * - `triggers`: named events GET /plugins/trigger (`triggerPluginEvent`) may fire, each saying who may fire it.
 * docs/plugins.md tells how to write one.
 */

/** Who may fire a triggerable event: anyone (also anonymous callers), signed-in users, or administrators. */
export type TriggerAccess = "public" | "registered" | "administrators";

/** What a listener gets besides the event. */
export interface ListenerContext {
  /** The dispatcher batch's transaction (under a savepoint of the listener's own), never a request's; refuses statements once the budget is over. */
  sql: SqlClient;
  /** The plugin record's `params`, parsed. */
  params: unknown;
  /** Aborted when the listener's time budget runs out: stop, nothing waits for the result any more. */
  signal: AbortSignal;
}

/** What a triggered event's handler gets. */
export interface TriggerContext extends ListenerContext {
  /** The request that fired it (its caller: `ctx.viewer`). */
  ctx: RequestContext;
}

/**
 * A domain event's listener. Delivery is at least once (a dispatcher may hand the same event again after a
 * crash or a timeout), so a listener must be idempotent by `event.id`: write with a key on it
 * (ON CONFLICT DO NOTHING), as the notifications do.
 */
/** An event as a plugin's listener receives it: as subscribers and webhooks do (`PublicEvent`). */
export type Listener = (event: PublicEvent, context: ListenerContext) => Promise<void>;

export interface TriggerDefinition {
  access: TriggerAccess;
  description: string;
  /** Its result, one element of the trigger's JSON array answer: JSON data. */
  run(context: TriggerContext): Promise<unknown>;
}

export interface PluginDefinition {
  /** The plugin group, as its record's `folder`. */
  folder: string;
  /** Its name in the group, as its record's `element`. */
  element: string;
  /** Shown to administrators (the record's own `name` may differ). */
  name: string;
  listeners?: Partial<Record<EventType, Listener>>;
  triggers?: Record<string, TriggerDefinition>;
}

const plugins = new Map<string, PluginDefinition>();

export const pluginKey = (folder: string, element: string) => `${folder}.${element}`;

/** Registers a plugin (one call per file of src/plugins/installed/). */
export function definePlugin(plugin: PluginDefinition): PluginDefinition {
  const key = pluginKey(plugin.folder, plugin.element);
  if (!/^[a-z0-9_-]{1,100}$/.test(plugin.folder) || !/^[a-z0-9_-]{1,100}$/.test(plugin.element)) {
    throw new Error(`plugin ${key}: folder and element are lower-case letters, digits, _ and -`);
  }
  if (plugins.has(key)) throw new Error(`plugin ${key} is defined twice`);
  const declared = new Set(eventCatalogue().map((entry) => entry.type));
  for (const type of Object.keys(plugin.listeners ?? {})) {
    if (!declared.has(type)) throw new Error(`plugin ${key} listens to ${type}, which is not a declared domain event (docs/events.md)`);
  }
  for (const name of Object.keys(plugin.triggers ?? {})) {
    if (!/^[a-zA-Z][a-zA-Z0-9_]{0,99}$/.test(name)) throw new Error(`plugin ${key}: trigger ${name} is not a plain name (letters, digits, _)`);
  }
  plugins.set(key, plugin);
  return plugin;
}

/** Removes a plugin (tests that define one of their own). */
export const forgetPlugin = (folder: string, element: string) => plugins.delete(pluginKey(folder, element));

export const pluginCode = (folder: string, element: string): PluginDefinition | undefined => plugins.get(pluginKey(folder, element));
export const registeredPlugins = (): PluginDefinition[] => [...plugins.values()];

/** The enabled records among `candidates`, with their params and access level, by folder and element: one statement. */
export async function enabledRecords(sql: SqlClient, candidates: PluginDefinition[]): Promise<{ plugin: PluginDefinition; params: unknown; access: number }[]> {
  if (!candidates.length) return [];
  const rows = await sql.query<{ folder: string; element: string; params: string; access: number }>(
    Prisma.sql`SELECT folder, element, params, access FROM plugin_records
                WHERE enabled = 1 AND (folder, element) IN (${Prisma.join(candidates.map((plugin) => Prisma.sql`(${plugin.folder}, ${plugin.element})`))})
                ORDER BY folder, element`,
  );
  return rows
    .map((row) => ({ plugin: pluginCode(row.folder, row.element)!, params: parsedParams(row.params), access: Number(row.access) }))
    .filter((found) => found.plugin);
}

const parsedParams = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
};

/** How long a listener or trigger handler may run before it is abandoned (logged and counted). */
export const DEFAULT_BUDGET_MS = 2000;

/**
 * Listener and trigger failures, by plugin, event and reason (`error` or `timeout`). One counter for the
 * process; each app's /metrics registry registers it (src/observability/metrics.ts). Labels are bounded:
 * plugins and their events are code.
 */
export const pluginFailures = new Counter({
  name: "hubgraph_plugin_failures_total",
  help: "Plugin listeners and triggered events that threw or ran out of their time budget, by plugin, event and reason (error or timeout).",
  labelNames: ["plugin", "event", "reason"] as const,
  registers: [],
});

let logger: Pick<Logger, "warn" | "error"> | null = null;
/** Where plugin failures are logged (the app's logger; set by createApp). */
export const setPluginLogger = (next: Pick<Logger, "warn" | "error">) => void (logger = next);

export class PluginTimeout extends Error {}

/**
 * Runs one plugin handler within `budgetMs`: a throw or an overrun is logged, counted and answered as
 * `{ ok: false }`, never thrown, so one plugin never breaks a write, a delivery or a trigger. The handler
 * gets an AbortSignal that fires at the deadline (a handler that keeps running after it is ignored).
 */
export async function runIsolated<T>(
  plugin: PluginDefinition,
  event: string,
  budgetMs: number,
  handler: (signal: AbortSignal) => Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new PluginTimeout(`ran longer than ${budgetMs} ms`));
    }, budgetMs);
  });
  try {
    const value = await Promise.race([Promise.resolve().then(() => handler(controller.signal)), deadline]);
    return { ok: true, value };
  } catch (error) {
    const reason = error instanceof PluginTimeout ? "timeout" : "error";
    const key = pluginKey(plugin.folder, plugin.element);
    pluginFailures.inc({ plugin: key, event, reason });
    logger?.warn({ err: error, plugin: key, event, reason }, `plugin ${key} failed on ${event} (${reason})`);
    return { ok: false, error };
  } finally {
    clearTimeout(timer);
  }
}
