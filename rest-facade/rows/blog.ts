import { BlogCreateDocument, BlogDeleteDocument, BlogListDocument, BlogReadDocument, BlogUpdateDocument } from "../generated/blog.js";
import type { RestOperation, RestParam } from "../types.js";
import { listParams } from "../list-params.js";
import { PUBLISH_STATE } from "../../src/common/access.js";
import { BLOG_ACCESS, BLOG_LIST } from "../../src/blog/service.js";
import { describeScopeKinds } from "../../src/common/scope-kinds.js";
// The kinds the description lists, also when the rows are loaded without the server (scripts, tests).
import "../../src/scope-kinds.js";

/** The blog entry table's optional fields; POST /blog and PUT /blog/{id} take them with the same defaults. */
const optional: RestParam[] = [
  { name: "alias", type: "string", required: false, description: "Entry alias; derived from the title when absent.", variable: "input.alias" },
  { name: "tags", type: "string", required: false, format: "list", description: "Comma-separated list of tags.", variable: "input.tags" },
  { name: "created", type: "string", required: false, default: "now", format: "timestamp", description: "Created timestamp.", variable: "input.created" },
  { name: "created_by", type: "integer", required: false, default: 0, description: "User ID of the creator (0: the caller).", variable: "input.createdBy" },
  { name: "state", type: "integer", required: false, default: 0, description: PUBLISH_STATE.description, variable: "input.state" },
  { name: "access", type: "integer", privacy: true, required: false, default: BLOG_ACCESS.fallback, description: BLOG_ACCESS.description, variable: "input.access" },
  { name: "allow_comments", type: "integer", required: false, default: 1, description: "Allow comments (1) or not (0).", variable: "input.allowComments" },
  { name: "publish_up", type: "string", required: false, default: "now", format: "timestamp", description: "Publish start timestamp.", variable: "input.publishUp" },
  { name: "publish_down", type: "string", required: false, format: "timestamp", description: "Publish end timestamp.", variable: "input.publishDown" },
];

const id: RestParam = { name: "id", type: "integer", required: true, description: "Entry identifier.", variable: "id" };
/** Required on create, optional (no default: the entry stays where it is) on update. */
const scope: Omit<RestParam, "required"> = { name: "scope", type: "string", privacy: true, description: `${describeScopeKinds()}.`, variable: "input.scope" };
const scopeId: Omit<RestParam, "required"> = { name: "scope_id", type: "integer", privacy: true, description: "Scope object ID.", variable: "input.scopeId" };
const title: RestParam = { name: "title", type: "string", required: true, description: "Entry title.", variable: "input.title" };
const content: RestParam = { name: "content", type: "string", required: true, description: "Entry content.", variable: "input.content" };

const operations: RestOperation[] = [
  {
    area: "blog",
    method: "POST",
    path: "/blog",
    versions: ["1.0"],
    task: "create an entry",
    params: [{ ...scope, required: true }, { ...scopeId, required: true }, title, content, ...optional],
    document: BlogCreateDocument,
    resultField: "createBlogEntry",
    response: { kind: "record" },
    status: 201,
    access: "signed-in user",
  },
  {
    area: "blog",
    method: "GET",
    path: "/blog/list",
    versions: ["1.0"],
    task: "list entries",
    params: listParams(BLOG_LIST),
    document: BlogListDocument,
    resultField: "blogEntries",
    response: { kind: "list", key: "posts", extra: { success: true } },
    status: 200,
    access: "anyone",
  },
  {
    area: "blog",
    method: "DELETE",
    path: "/blog/{id}",
    versions: ["1.0"],
    task: "delete an entry",
    params: [id],
    document: BlogDeleteDocument,
    resultField: "deleteBlogEntry",
    response: { kind: "empty" },
    status: 204,
    access: "signed-in user",
  },
  {
    area: "blog",
    method: "GET",
    path: "/blog/{id}",
    versions: ["1.0"],
    task: "retrieve an entry",
    params: [id],
    document: BlogReadDocument,
    resultField: "blogEntry",
    response: { kind: "record" },
    status: 200,
    access: "anyone",
  },
  {
    area: "blog",
    method: "PUT",
    path: "/blog/{id}",
    versions: ["1.0"],
    task: "update an entry",
    params: [
      id,
      title,
      content,
      { ...scope, required: false },
      { ...scopeId, required: false },
      ...optional,
      { name: "hits", type: "integer", required: false, default: 0, description: "Record hits.", variable: "input.hits" },
    ],
    document: BlogUpdateDocument,
    resultField: "updateBlogEntry",
    response: { kind: "record" },
    status: 200,
    access: "signed-in user",
  },
];

export default operations;
