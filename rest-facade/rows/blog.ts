import { BlogCreateDocument, BlogDeleteDocument, BlogListDocument, BlogReadDocument, BlogUpdateDocument } from "../generated/blog.js";
import type { RestOperation, RestParam } from "../types.js";
import { listParams } from "../list-params.js";
import { fieldParams } from "../field-params.js";
import { BLOG_FIELDS, BLOG_LIST } from "../../src/blog/service.js";
// The kinds the description lists, also when the rows are loaded without the server (scripts, tests).
import "../../src/scope-kinds.js";

const id: RestParam = { name: "id", type: "integer", required: true, description: "Entry identifier.", variable: "id" };

const operations: RestOperation[] = [
  {
    area: "blog",
    method: "POST",
    path: "/blog",
    versions: ["1.0"],
    task: "create an entry",
    params: fieldParams(BLOG_FIELDS, "create"),
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
    params: [id, ...fieldParams(BLOG_FIELDS, "replace")],
    document: BlogUpdateDocument,
    resultField: "updateBlogEntry",
    response: { kind: "record" },
    status: 200,
    access: "signed-in user",
  },
];

export default operations;
