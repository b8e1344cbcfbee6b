import { DEFAULT_SCOPE, describeList, type ListSpec } from "../src/common/list-spec.js";
import type { RestParam } from "../src/common/rest-vocabulary.js";

/**
 * A list row's parameters from the area's list spec: the defaults and the sort whitelist the service
 * applies, described as GraphQL describes them. Each feeds the list field's argument of the same name.
 */
export function listParams(spec: ListSpec): RestParam[] {
  const describe = describeList(spec);
  return [
    { name: "limit", type: "integer", required: false, default: spec.defaults.limit, description: describe.limit, variable: "limit" },
    { name: "start", type: "integer", required: false, default: 0, description: describe.start, variable: "start" },
    ...(spec.search ? [{ name: "search", type: "string", required: false, description: describe.search!, variable: "search" } as const] : []),
    { name: "sort", type: "string", required: false, default: spec.defaults.sort, description: describe.sort, variable: "sort" },
    { name: "sort_Dir", type: "string", required: false, default: spec.defaults.sortDir, description: describe.sortDir, variable: "sortDir" },
    ...(spec.scoped
      ? ([
          { name: "scope", type: "string", required: false, default: DEFAULT_SCOPE.scope, description: describe.scope, variable: "scope" },
          { name: "scope_id", type: "integer", required: false, default: DEFAULT_SCOPE.scopeId, description: describe.scopeId, variable: "scopeId" },
        ] as const)
      : []),
  ];
}
