import {
  ForumUserCategoriesCreateDocument,
  ForumUserCategoriesDestroyDocument,
} from "../generated/forum.js";
import type { RestOperation } from "../types.js";
import type { RestParam } from "../../src/common/rest-vocabulary.js";
import { restFragments, withFragments } from "../area-rows.js";
import { describeList, DEFAULT_SCOPE } from "../../src/common/list-spec.js";
import { FORUM_LIST, FORUM_POSTS_AREA } from "../../src/forum/area.js";

const page = describeList(FORUM_LIST);
const paging: RestParam[] = [
  { name: "limit", type: "integer", required: false, default: 25, description: page.limit, variable: "limit" },
  { name: "limitstart", type: "integer", required: false, default: 0, description: page.start, variable: "start" },
];
const scope: RestParam[] = [
  { name: "scope", type: "string", required: false, default: DEFAULT_SCOPE.scope, description: page.scope, variable: "scope" },
  { name: "scope_id", type: "integer", required: false, default: DEFAULT_SCOPE.scopeId, description: page.scopeId, variable: "scopeId" },
];


/** The user-category links: the documented names, and the original client's (`userId`, `categoriesIds[]`). */
const links: RestParam[] = [
  { name: "category_id", type: "integer", required: true, description: "Category ID.", variable: "categoryId", orGiven: ["categoriesIds"] },
  { name: "user_id", type: "integer", required: true, description: "User ID (yours; administrators may name anyone).", variable: "userId", alsoNamed: ["userId"] },
  { name: "categoriesIds", type: "array", required: false, description: "Category IDs, as the original client sends them (categoriesIds[]).", variable: "categoriesIds" },
];

/** GET /forum/{thread}: the thread and its page of replies, each as the posts' declared rows answer a post (their `ForumPostRest` fragment). */
const threadRead = withFragments(
  restFragments(FORUM_POSTS_AREA),
  `query ForumThreadRead(
    $id: ID!
    $limit: Int
    $start: Int
    $section: String
    $category: String
    $state: Int
    $scope: String
    $scopeId: Int
    $scopeSubId: Int
    $objectId: Int
    $startId: Int
    $startAt: DateTime
    $sort: String
  ) {
    forumThread(
      id: $id
      limit: $limit
      start: $start
      section: $section
      category: $category
      state: $state
      scope: $scope
      scopeId: $scopeId
      scopeSubId: $scopeSubId
      objectId: $objectId
      startId: $startId
      startAt: $startAt
      sort: $sort
    ) {
      thread {
        ...ForumPostRest
      }
      posts {
        ...ForumPostRest
      }
      total
    }
  }`,
);

const operations: RestOperation[] = [
  {
    area: "forum",
    method: "POST",
    path: "/forum/userscategories/create",
    documentedIn: "forum-categories",
    versions: ["2.0"],
    task: "create a user's category link",
    params: links,
    document: ForumUserCategoriesCreateDocument,
    resultField: "createForumUserCategories",
    response: { kind: "record" },
    status: 201,
    access: "signed-in user",
  },
  {
    area: "forum",
    method: "DELETE",
    path: "/forum/userscategories/destroy",
    documentedIn: "forum-categories",
    versions: ["2.0"],
    task: "destroy a user's category link",
    params: links,
    document: ForumUserCategoriesDestroyDocument,
    resultField: "deleteForumUserCategories",
    response: { kind: "record" },
    status: 200,
    access: "signed-in user",
  },
  {
    area: "forum",
    method: "GET",
    path: "/forum/{thread}",
    versions: ["1.0"],
    task: "retrieve a thread",
    params: [
      { name: "id", type: "integer", required: true, default: 0, description: "Thread identifier.", variable: "id", placeholder: "thread" },
      ...paging,
      { name: "section", type: "string", required: false, description: "Section alias the thread must be in.", variable: "section" },
      { name: "category", type: "string", required: false, description: "Category alias the thread must be in.", variable: "category" },
      { name: "state", type: "integer", required: false, default: 1, description: "Replies published (1) or unpublished (0).", variable: "state" },
      ...scope,
      { name: "scope_sub_id", type: "integer", required: false, default: 0, description: "Scope sub-ID (accepted; the forum keeps none).", variable: "scopeSubId" },
      { name: "object_id", type: "integer", required: false, default: 0, description: "Object ID (accepted; the forum keeps none).", variable: "objectId" },
      { name: "start_id", type: "integer", required: false, default: 0, description: "ID of the record to start with.", variable: "startId" },
      { name: "start_at", type: "string", format: "timestamp", required: false, description: "Start timestamp.", variable: "startAt" },
      { name: "sort", type: "string", required: false, default: "newest", description: "newest or oldest.", variable: "sort" },
    ],
    document: threadRead,
    resultField: "forumThread",
    response: { kind: "record" },
    status: 200,
    access: "anyone",
  },
];

export default operations;
