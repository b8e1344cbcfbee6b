import { GroupCreateDocument, GroupDeleteDocument, GroupListDocument, GroupMembersListDocument, GroupReadDocument, GroupUpdateDocument } from "../generated/groups.js";
import type { RestOperation, RestParam } from "../types.js";
import { listParams } from "../list-params.js";
import { fieldParams } from "../field-params.js";
import { pageParams } from "../page-params.js";
import { GROUP_FIELDS, GROUP_LIST, MEMBER_LISTS } from "../../src/groups/service.js";
import { fieldsParam } from "../fields-param.js";
import "../responses/array.js";

/**
 * Groups (API document: 1.0 and 1.1 with identical parameters). `{id}` is the gidNumber or the cn (the
 * original's router takes both; the document types it integer): the parameter is a string.
 */
const VERSIONS = ["1.0", "1.1"];
const id: RestParam = { name: "id", type: "string", required: true, description: "The group's gidNumber or cn.", variable: "id" };

/** The API document's `fields` of list and read: any key of the REST record; gidNumber always (docs/decisions.md, "Groups"). */
const fields = fieldsParam({ default: ["gidNumber", "cn", "description", "created", "created_by"], alwaysKept: ["gidNumber"], description: "Fields to return." });

const operations: RestOperation[] = [
  {
    area: "groups",
    method: "POST",
    path: "/groups",
    versions: VERSIONS,
    task: "create a group",
    params: fieldParams(GROUP_FIELDS, "create"),
    document: GroupCreateDocument,
    resultField: "createGroup",
    response: { kind: "record" },
    status: 201,
    access: "signed-in user",
  },
  {
    area: "groups",
    method: "GET",
    path: "/groups/list",
    versions: VERSIONS,
    task: "list groups",
    params: [...listParams(GROUP_LIST), fields],
    document: GroupListDocument,
    resultField: "groups",
    response: { kind: "array" },
    status: 200,
    access: "anyone",
  },
  {
    area: "groups",
    method: "DELETE",
    path: "/groups/{id}",
    versions: VERSIONS,
    task: "delete a group",
    params: [id],
    document: GroupDeleteDocument,
    resultField: "deleteGroup",
    response: { kind: "empty" },
    status: 204,
    access: "signed-in user",
  },
  {
    area: "groups",
    method: "GET",
    path: "/groups/{id}",
    versions: VERSIONS,
    task: "retrieve a group",
    params: [id, fields],
    document: GroupReadDocument,
    resultField: "group",
    response: { kind: "record" },
    status: 200,
    access: "anyone",
  },
  {
    area: "groups",
    method: "PUT",
    path: "/groups/{id}",
    versions: VERSIONS,
    task: "update a group",
    params: [id, ...fieldParams(GROUP_FIELDS, "replace")],
    document: GroupUpdateDocument,
    resultField: "updateGroup",
    response: { kind: "record" },
    status: 200,
    access: "signed-in user",
  },
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
