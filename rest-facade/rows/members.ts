import type { RestOperation } from "../types.js";
import { restFragments, withFragments } from "../area-rows.js";
import { USERS_AREA } from "../../src/users/area.js";

/**
 * Accounts (contract: Authentication) beside the area's own rows (POST /members, from src/users/area.ts):
 * the signed-in caller, answered with the account's REST fragment from the same declaration.
 */
const operations: RestOperation[] = [
  {
    area: "members",
    method: "GET",
    path: "/members/me",
    versions: ["1.0"],
    task: "the signed-in caller",
    params: [],
    document: withFragments(restFragments(USERS_AREA), "query MemberMe { me { ...UserRest } }"),
    resultField: "me",
    response: { kind: "record" },
    status: 200,
    access: "signed-in user",
  },
];

export default operations;
