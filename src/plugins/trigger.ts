import { sqlOf, type RequestContext } from "../common/context.js";
import { ApiError, badInput, forbidden, unauthenticated } from "../common/errors.js";
import { DEFAULT_BUDGET_MS, enabledRecords, registeredPlugins, runIsolated, type TriggerAccess } from "./registry.js";
import "./installed.js";

/** A record's `access` as the trigger rule it adds: 1 public (the code's mark stands), 2 registered, 3 administrators. */
const RECORD_ACCESS: Record<number, TriggerAccess> = { 1: "public", 2: "registered", 3: "administrators" };
const STRICTNESS: TriggerAccess[] = ["public", "registered", "administrators"];
const stricter = (a: TriggerAccess, b: TriggerAccess) => (STRICTNESS.indexOf(a) >= STRICTNESS.indexOf(b) ? a : b);

const mayFire = (ctx: RequestContext, access: TriggerAccess) =>
  access === "public" || (access === "registered" && ctx.viewer.user !== null) || (access === "administrators" && ctx.viewer.user?.isAdmin === true);

/**
 * GET /plugins/trigger and the mutation `triggerPluginEvent`: fires a named event that plugins registered
 * as triggerable (`triggers`, never a domain event) and answers their handlers' results, in folder and
 * element order (`[]` when the plugins that declare it are disabled; an event no plugin declares is 404 naming
 * `event` and listing the declared ones). `event` is `group.event`, or `event` with `folder`
 * naming the group; without a group, the event of that name in every folder. Who may fire it: what the
 * plugin's code marks (public, registered, administrators), made stricter by its record's access level
 * (2 registered, 3 administrators); an event the caller may not fire is 401 for anonymous callers and 403
 * for others, and nothing runs (docs/decisions.md, "Plugins"). A handler that throws or runs out of its
 * budget is logged and counted and left out of the answer.
 */
export async function triggerPluginEvent(
  ctx: RequestContext,
  args: { event: string; folder?: string | null },
  options: { budgetMs?: number } = {},
): Promise<unknown[]> {
  const raw = args.event.trim();
  if (!raw) throw badInput("event", "is required: an event name, or group.event");
  const dot = raw.indexOf(".");
  const folder = args.folder?.trim() || null;
  const group = dot >= 0 ? raw.slice(0, dot) : folder;
  const name = dot >= 0 ? raw.slice(dot + 1) : raw;
  if (dot >= 0 && folder && folder !== group) throw badInput("folder", `names another group than the event ${raw}`);
  const candidates = registeredPlugins().filter((plugin) => (group === null || plugin.folder === group) && Object.hasOwn(plugin.triggers ?? {}, name));
  const sql = sqlOf(ctx);
  if (!candidates.length) {
    // An event no plugin declares is a mistake of the caller's (a misspelling), not an event without handlers: 404 naming it and
    // the events this caller may fire — of enabled plugins only, at the caller's rights: which plugins are installed is the
    // administrators' to know (GET /plugins/list), so a disabled plugin's or an administrators-only trigger is not named to others.
    const enabledAll = await enabledRecords(sql, registeredPlugins().filter((plugin) => Object.keys(plugin.triggers ?? {}).length));
    const triggerable = [
      ...new Set(
        enabledAll.flatMap(({ plugin, access }) =>
          Object.entries(plugin.triggers ?? {})
            .filter(([, trigger]) => mayFire(ctx, stricter(trigger.access, RECORD_ACCESS[access] ?? "administrators")))
            .map(([event]) => `${plugin.folder}.${event}`),
        ),
      ),
    ].sort();
    throw new ApiError(404, `No plugin declares the event ${group ? `${group}.${name}` : name}; the events you may fire: ${triggerable.join(", ") || "none"}.`, [
      { parameter: "event", message: `is no event a plugin declares (you may fire: ${triggerable.join(", ") || "none"})` },
    ]);
  }
  const enabled = await enabledRecords(sql, candidates);
  const refused = enabled.find(({ plugin, access }) => !mayFire(ctx, stricter(plugin.triggers![name]!.access, RECORD_ACCESS[access] ?? "administrators")));
  if (refused) {
    if (!ctx.viewer.user) throw unauthenticated(`Sign in to fire ${refused.plugin.folder}.${name}.`);
    throw forbidden(`You may not fire ${refused.plugin.folder}.${name}.`);
  }
  const results: unknown[] = [];
  for (const { plugin, params } of enabled) {
    const handler = plugin.triggers![name]!;
    const outcome = await runIsolated(plugin, `${plugin.folder}.${name}`, options.budgetMs ?? DEFAULT_BUDGET_MS, (signal) => handler.run({ ctx, sql, params, signal }));
    if (outcome.ok) results.push(outcome.value ?? null);
  }
  return results;
}
