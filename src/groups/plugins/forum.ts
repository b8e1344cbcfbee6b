import { FORUM_POSTS_AREA } from "../../forum/area.js";
import { FORUM_FIELDS } from "../../forum/records.js";
import type { RequestContext } from "../../common/context.js";
import { declaredAreaPlugin, defineGroupPlugin } from "../plugins.js";

/** The forum's fields but the category: a group's threads go to the group's default category (made with its first). */
const { categoryId: _category, ...fields } = FORUM_FIELDS.fields;

/** The group's forum: /groups/{group}/forum, its posts answering as /forum/list's threads do. */
const plugin = declaredAreaPlugin(FORUM_POSTS_AREA, {
  name: "forum",
  plural: "ForumPosts",
  noun: "forum post",
  rest: { selection: "...ForumPostRest", list: { key: "threads", extra: { success: true } } },
});

defineGroupPlugin({
  ...plugin,
  fields: { fields },
  service: { ...plugin.service, create: (ctx: RequestContext, input: object, query: object) => FORUM_POSTS_AREA.createRecord(ctx, { ...input, categoryId: 0 }, query) },
});
