import type { RequestContext } from "../common/context.js";
import { badInput } from "../common/errors.js";
import { cursorOf } from "./subscriptions.js";

// What every subscription field reads from its request, in a module that registers nothing: an area's
// subscription imports it without making src/events/graphql.ts (whose `<record>Changed` fields are made from
// the areas' written records at import) run before every area has declared its records.

/** The caller's address and its cap (ANONYMOUS_SUBSCRIPTIONS_PER_ADDRESS), for anonymous subscribers. */
export const subscribedFrom = (ctx: RequestContext) => (ctx.clientAddress ? { address: ctx.clientAddress, cap: ctx.config.anonymousSubscriptionsPerAddress } : undefined);

/** Where a reconnecting subscriber left off: its Last-Event-ID header, an event's `id`. */
export function resumedAfter(lastEventId: string | undefined) {
  if (lastEventId === undefined) return undefined;
  const cursor = cursorOf(lastEventId);
  if (!cursor) throw badInput("Last-Event-ID", "must be the id of an event this API sent (<transaction>:<event>)");
  return cursor;
}
