import { CHANGES_ONE_RECORD } from "../graphql/crud.js";
import { builder } from "../graphql/builder.js";
import { hubOf, isSubscriptionFailure, type DeliveredEvent, type SubscriptionFailure } from "../events/subscriptions.js";
import { resumedAfter, subscribedFrom } from "../events/subscription-request.js";
import { describePage } from "../common/list-spec.js";
import { parseId } from "../common/validation.js";
import type { ForumPost } from "../generated/prisma/client.js";
import { findVisible } from "../common/record-reads.js";
import { notFound } from "../common/errors.js";
import { createForumUserCategories, type ForumUserCategoryLink, destroyForumUserCategories, readForumThread, type ForumThreadPage } from "./service.js";
import { closeForumThread, FORUM_POSTS_AREA, pinForumThread, publishForumPost } from "./area.js";
import { FORUM_POSTS } from "./records.js";
import { areaType } from "../graphql/area.js";

/** The post's record type, from its declaration (src/forum/area.ts). */
export const ForumPostType = areaType(FORUM_POSTS_AREA);

const ForumThreadPageType = builder.objectRef<ForumThreadPage>("ForumThreadPage").implement({
  description: "A thread (its starter post) and a page of its replies, with their exact total.",
  fields: (t) => ({
    thread: t.field({ type: ForumPostType, resolve: (page) => page.thread }),
    posts: t.field({ type: [ForumPostType], resolve: (page) => page.posts }),
    total: t.int({ resolve: (page) => page.total }),
  }),
});

builder.queryField("forumThread", (t) =>
  t.field({
    type: ForumThreadPageType,
    description: "Reads a thread and a page of its replies (GET /api/forum/{thread}).",
    authScopes: { public: true },
    args: {
      id: t.arg.id({ required: true, description: "The thread (its starter post's id)." }),
      limit: t.arg.int({ description: describePage().limit }),
      start: t.arg.int({ description: describePage().start }),
      section: t.arg.string({ description: "Section alias the thread must be in." }),
      category: t.arg.string({ description: "Category alias the thread must be in." }),
      state: t.arg.int({ defaultValue: 1, description: "Replies published (1) or unpublished (0)." }),
      scope: t.arg.string({ defaultValue: "site", description: "Scope the thread must be in (site/0: any)." }),
      scopeId: t.arg.int({ defaultValue: 0, description: "Scope object ID." }),
      scopeSubId: t.arg.int({ defaultValue: 0, description: "Accepted; the forum keeps no sub-scope." }),
      objectId: t.arg.int({ defaultValue: 0, description: "Accepted; the forum keeps no object." }),
      startId: t.arg.int({ defaultValue: 0, description: "The reply to start with (0: the first by the sort)." }),
      startAt: t.arg({ type: "DateTime", description: "The time to start at." }),
      sort: t.arg.string({ defaultValue: "newest", description: "newest or oldest." }),
    },
    resolve: (_root, args, ctx) => readForumThread(ctx, parseId(String(args.id)), args),
  }),
);

const moderation = [
  { field: "closeForumThread", arg: "closed", description: "Group managers and administrators: closes (true) or reopens a thread.", run: closeForumThread },
  { field: "pinForumThread", arg: "sticky", description: "Group managers and administrators: makes a thread sticky (true) or not.", run: pinForumThread },
  { field: "publishForumPost", arg: "published", description: "Publishes (true) or unpublishes a post (moderators, and authors their own).", run: publishForumPost },
] as const;

for (const { field, arg, description, run } of moderation) {
  builder.mutationField(field, (t) =>
    t.prismaField({
      type: "ForumPost",
      nullable: true,
      description,
      authScopes: { user: true },
      args: { id: t.arg.id({ required: true }), [arg]: t.arg.boolean({ required: true }) } as never,
      extensions: CHANGES_ONE_RECORD,
      resolve: (query, _root, args: Record<string, unknown>, ctx) => run(ctx, parseId(String(args.id)), args[arg] as boolean, query as never),
    }),
  );
}

const userCategoryArgs = (t: Parameters<Parameters<typeof builder.mutationField>[1]>[0]) => ({
  userId: t.arg.int({ description: "The user (0 or absent: yourself); only administrators link others." }),
  categoryId: t.arg.int({ description: "A category." }),
  categoriesIds: t.arg({ type: ["JSON"], description: "Categories (the original client's name), with or instead of categoryId." }),
});

const ForumUserCategoryLinkType = builder.objectRef<ForumUserCategoryLink>("ForumUserCategoryLink").implement({
  description: "A user's link to a forum category (the original's forum_users_categories: the user hears of the category's posts).",
  fields: (t) => ({
    userId: t.exposeInt("userId", { description: "The user linked." }),
    categoryId: t.exposeInt("categoryId", { description: "The category." }),
  }),
});

builder.mutationField("createForumUserCategories", (t) =>
  t.field({
    type: [ForumUserCategoryLinkType],
    description: "Links a user to categories (POST /api/v2.0/forum/userscategories/create, 201); answers the links, one per category (those that existed already included).",
    authScopes: { user: true },
    args: userCategoryArgs(t),
    resolve: (_root, args, ctx) => createForumUserCategories(ctx, args),
  }),
);

builder.mutationField("deleteForumUserCategories", (t) =>
  t.field({
    type: ["Int"],
    description: "Unlinks a user from categories (DELETE /api/v2.0/forum/userscategories/destroy); answers the ids unlinked.",
    authScopes: { user: true },
    args: userCategoryArgs(t),
    resolve: (_root, args, ctx) => destroyForumUserCategories(ctx, args),
  }),
);

/**
 * A thread's new posts as they commit (issue 15: "a thread's new posts"), each as the caller may read it:
 * the hub delivers only the posts they may read at that moment (a reply is never readable where its thread
 * is not). A thread the caller may not read is 404; Last-Event-ID resumes as for every subscription.
 */
builder.subscriptionField("forumThreadPosts", (t) =>
  t.field({
    type: ForumPostType,
    nullable: true,
    description: "New posts in one thread (its replies) as they commit, those you may read; null for one deleted before it reached you.",
    authScopes: { public: true },
    args: { thread: t.arg.id({ required: true, description: "The thread (its starter post's id)." }) },
    subscribe: async (_root, args, ctx) => {
      const thread = parseId(String(args.thread));
      const starter = await findVisible<ForumPost>(ctx, FORUM_POSTS, thread);
      if (!starter?.starter) throw notFound(`Forum thread ${thread} not found.`);
      return hubOf(ctx.db).subscribe(
        ctx.viewer,
        (event) => event.type === "forum.postCreated" && event.recordId !== thread && Number(event.payload.threadId) === thread,
        resumedAfter(ctx.lastEventId),
        subscribedFrom(ctx),
      );
    },
    resolve: async (event: DeliveredEvent | SubscriptionFailure, _args, ctx) => {
      if (isSubscriptionFailure(event)) throw event.failed;
      return findVisible<ForumPost>(ctx, FORUM_POSTS, event.recordId);
    },
  }),
);
