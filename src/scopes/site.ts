import { defineScopeKind } from "../common/scope-kinds.js";

/** `scope=site`, `scope_id` 0: the whole site. Any signed-in user writes; nobody belongs or manages. */
export const SITE_SCOPE = defineScopeKind({
  name: "site",
  exists: (scopeId) => scopeId === 0,
  writers: "anyone",
});
