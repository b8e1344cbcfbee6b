import { defineScopeKind } from "../common/scope-kinds.js";

/**
 * `scope=project`: the original system's projects keep wiki pages and blog entries under this kind, and
 * records stored here before kinds were registered stay. There are no projects yet, so any id is accepted
 * and any signed-in user writes (as before); nobody belongs or manages until a projects area declares its
 * members here (and moves this declaration to src/projects/).
 */
export const PROJECT_SCOPE = defineScopeKind({
  name: "project",
  writers: "anyone",
});
