import { WikiCreateDocument, WikiDeleteDocument, WikiListDocument, WikiReadDocument, WikiUpdateDocument } from "../generated/wiki.js";
import type { RestOperation, RestParam } from "../types.js";
import { listParams } from "../list-params.js";
import { PUBLISH_STATE } from "../../src/common/access.js";
import { WIKI_ACCESS, WIKI_LIST } from "../../src/wiki/service.js";

/** POST /wiki's optional parameters; PUT /wiki/{id} takes them with the same defaults. */
const optional: RestParam[] = [
  { name: "pagename", type: "string", required: false, description: "Page name; derived from the title when absent.", variable: "input.pagename" },
  { name: "created", type: "string", required: false, default: "now", format: "timestamp", description: "Created timestamp.", variable: "input.created" },
  { name: "created_by", type: "integer", required: false, default: 0, description: "User ID of the creator (0: the caller).", variable: "input.createdBy" },
  { name: "state", type: "integer", required: false, default: 0, description: PUBLISH_STATE.description, variable: "input.state" },
  { name: "access", type: "integer", privacy: true, required: false, default: WIKI_ACCESS.fallback, description: WIKI_ACCESS.description, variable: "input.access" },
  { name: "scope", type: "string", privacy: true, required: false, default: "site", description: "Page scope.", variable: "input.scope" },
  { name: "scope_id", type: "integer", privacy: true, required: false, default: 0, description: "Page scope ID.", variable: "input.scopeId" },
  { name: "params", type: "array", required: false, format: "map", description: "Page options.", variable: "input.params" },
];

const id: RestParam = { name: "id", type: "integer", required: true, default: 0, description: "Page identifier.", variable: "id" };
const title: RestParam = { name: "title", type: "string", required: true, description: "Page title.", variable: "input.title" };
const pagetext: RestParam = { name: "pagetext", type: "string", required: true, description: "Page content.", variable: "input.pagetext" };

const operations: RestOperation[] = [
  {
    area: "wiki",
    method: "POST",
    path: "/wiki",
    versions: ["1.0"],
    task: "create a page",
    params: [title, pagetext, ...optional],
    document: WikiCreateDocument,
    resultField: "createWikiPage",
    response: { kind: "record" },
    status: 201,
    access: "signed-in user",
  },
  {
    area: "wiki",
    method: "GET",
    path: "/wiki/list",
    versions: ["1.0"],
    task: "list pages",
    params: listParams(WIKI_LIST),
    document: WikiListDocument,
    resultField: "wikiPages",
    response: { kind: "list", key: "pages" },
    status: 200,
    access: "anyone",
  },
  {
    area: "wiki",
    method: "DELETE",
    path: "/wiki/{id}",
    versions: ["1.0"],
    task: "delete a page",
    params: [id],
    document: WikiDeleteDocument,
    resultField: "deleteWikiPage",
    response: { kind: "empty" },
    status: 204,
    access: "signed-in user",
  },
  {
    area: "wiki",
    method: "GET",
    path: "/wiki/{id}",
    versions: ["1.0"],
    task: "read a page",
    params: [
      id,
      { name: "version_id", type: "integer", required: false, default: 0, description: "Revision ID (0: the newest approved revision).", variable: "versionId" },
    ],
    document: WikiReadDocument,
    resultField: "wikiPage",
    response: { kind: "record" },
    status: 200,
    access: "anyone",
  },
  {
    area: "wiki",
    method: "PUT",
    path: "/wiki/{id}",
    versions: ["1.0"],
    task: "update a page",
    params: [
      { ...id, default: undefined },
      title,
      pagetext,
      ...optional,
      { name: "summary", type: "string", required: false, description: "Summary of changes made.", variable: "input.summary" },
    ],
    document: WikiUpdateDocument,
    resultField: "updateWikiPage",
    response: { kind: "record" },
    status: 200,
    access: "signed-in user",
  },
];

export default operations;
