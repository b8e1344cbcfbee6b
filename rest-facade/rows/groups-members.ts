import { GroupMembersListDocument } from "../generated/groups.js";
import type { RestOperation } from "../types.js";
import type { RestParam } from "../../src/common/rest-vocabulary.js";
import { pageParams } from "../page-params.js";
import { MEMBER_LISTS } from "../../src/groups/service.js";

/**
 * A group's people (API document: 1.0). The group's own rows come from its declaration (src/groups/area.ts).
 * `{id}` is the gidNumber or the cn: the parameter is a string.
 */
const id: RestParam = { name: "id", type: "string", required: true, description: "The group's gidNumber or cn.", variable: "id" };

const operations: RestOperation[] = [
  {
    area: "groups",
    method: "GET",
    path: "/groups/{id}/members/list",
    versions: ["1.0"],
    task: "list members of a group",
    params: [
      id,
      { name: "list", type: "string", format: "list", required: false, description: `Comma-separated statuses to list: ${MEMBER_LISTS.join(", ")} (default all).`, variable: "list" },
      ...pageParams(),
    ],
    document: GroupMembersListDocument,
    resultField: "groupMembers",
    response: { kind: "record" },
    status: 200,
    access: "anyone",
  },
];

export default operations;
