import DataLoader from "dataloader";
import type { RequestContext } from "./context.js";

/**
 * A per-request DataLoader, declared where it is used: `defineLoader(ctx => new DataLoader(…))`
 * returns a function that gives each request context its own loader, created on first use. Lookups by
 * key made while resolving N items are batched into one statement and cached for the request only,
 * so nothing leaks between callers with different rights.
 */
export function defineLoader<K, V, C = K>(create: (ctx: RequestContext) => DataLoader<K, V, C>): (ctx: RequestContext) => DataLoader<K, V, C> {
  const loaders = new WeakMap<RequestContext, DataLoader<K, V, C>>();
  return (ctx) => {
    let loader = loaders.get(ctx);
    if (!loader) {
      loader = create(ctx);
      loaders.set(ctx, loader);
    }
    return loader;
  };
}

/** Orders rows found by `key` to match the requested keys (null where none), as DataLoader expects. */
export function byKeys<K, R>(keys: readonly K[], rows: R[], key: (row: R) => K): (R | null)[] {
  const found = new Map(rows.map((row) => [key(row), row]));
  return keys.map((wanted) => found.get(wanted) ?? null);
}
