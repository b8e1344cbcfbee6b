import { DEFAULT_PAGE_SIZE, describePage } from "../src/common/list-spec.js";
import type { RestParam } from "../src/common/rest-vocabulary.js";

/** `limit` and `start` of a list that has no sort, search or scope (e.g. a user's own sessions). */
export function pageParams(defaultLimit = DEFAULT_PAGE_SIZE): RestParam[] {
  const describe = describePage(defaultLimit);
  return [
    { name: "limit", type: "integer", required: false, default: defaultLimit, description: describe.limit, variable: "limit" },
    { name: "start", type: "integer", required: false, default: 0, description: describe.start, variable: "start" },
  ];
}
