import { WikiCreateDocument, WikiDeleteDocument, WikiListDocument, WikiReadDocument, WikiUpdateDocument } from "../generated/wiki.js";
import type { RestOperation, RestParam } from "../types.js";
import { listParams } from "../list-params.js";
import { fieldParams } from "../field-params.js";
import { WIKI_FIELDS, WIKI_LIST } from "../../src/wiki/service.js";

const id: RestParam = { name: "id", type: "integer", required: true, default: 0, description: "Page identifier.", variable: "id" };

const operations: RestOperation[] = [
  {
    area: "wiki",
    method: "POST",
    path: "/wiki",
    versions: ["1.0"],
    task: "create a page",
    params: fieldParams(WIKI_FIELDS, "create", { except: ["summary"] }),
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
    params: [{ ...id, default: undefined }, ...fieldParams(WIKI_FIELDS, "replace")],
    document: WikiUpdateDocument,
    resultField: "updateWikiPage",
    response: { kind: "record" },
    status: 200,
    access: "signed-in user",
  },
];

export default operations;
