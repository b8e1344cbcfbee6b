import { ForumPostType } from "../../forum/graphql.js";
import { FORUM_FIELDS, FORUM_LIST, createForumPost, deleteForumPost, getForumPost, listForumPosts, updateForumPost, type CreateForumPost } from "../../forum/service.js";
import type { RequestContext } from "../../common/context.js";
import { defineGroupPlugin } from "../plugins.js";

/** The forum's fields but the category: a group's threads go to the group's default category (made with its first). */
const { categoryId: _category, ...fields } = FORUM_FIELDS.fields;

/** The group's forum: /groups/{group}/forum, its posts answering as /forum/list's threads do. */
defineGroupPlugin({
  name: "forum",
  area: "forum",
  model: "ForumPost",
  plural: "ForumPosts",
  type: ForumPostType,
  noun: "forum post",
  fields: { fields },
  service: {
    list: { spec: FORUM_LIST, resolve: listForumPosts },
    read: getForumPost,
    create: (ctx: RequestContext, input: object, query: object) => createForumPost(ctx, { ...(input as CreateForumPost), categoryId: 0 }, query as never),
    update: updateForumPost,
    remove: deleteForumPost,
  },
  rest: { selection: "...ForumPostRest", documents: "forum", list: { key: "threads", extra: { success: true } } },
});
