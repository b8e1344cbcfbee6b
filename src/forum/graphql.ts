import { builder } from "../graphql/builder.js";
import "./group-content.js";
import "./activity.js";
import { hubOf, isSubscriptionFailure, type DeliveredEvent, type SubscriptionFailure } from "../events/subscriptions.js";
import { resumedAfter, subscribedFrom } from "../events/subscription-request.js";
import { accessEnum } from "../graphql/access.js";
import { tableInput } from "../graphql/fields.js";
import { recordFields } from "../graphql/crud.js";
import { describePage } from "../common/paging.js";
import { scopedPath } from "../common/scopes.js";
import { parseId } from "../common/validation.js";
import { UserType } from "../users/graphql.js";
import type { ForumPost } from "../generated/prisma/client.js";
import { findVisible } from "../common/records.js";
import { notFound } from "../common/errors.js";
import {
  FORUM_ACCESS,
  FORUM_POSTS,
  FORUM_FIELDS,
  FORUM_LIST,
  authorShown,
  closeForumThread,
  createForumPost,
  createForumUserCategories,
  type ForumUserCategoryLink,
  deleteForumPost,
  destroyForumUserCategories,
  forumCounts,
  getForumPost,
  lastVisiblePost,
  listForumPosts,
  pinForumThread,
  publishForumPost,
  readForumThread,
  updateForumPost,
  type ForumListArgs,
  type ForumThreadPage,
} from "./service.js";

const ForumAccess = accessEnum(FORUM_ACCESS);

/**
 * A thread is its starter post (`starter` true, `parentId` 0, `threadId` its own id): one `ForumPost`
 * type serves both, and `forumPosts(threadsOnly: true)` lists threads (docs/decisions.md).
 */
export const ForumPostType = builder.prismaObject("ForumPost", {
  description: "A forum post; a thread is its starter post (threadId equals id). Anonymous posts show no author to others.",
  fields: (t) => ({
    id: t.exposeID("id"),
    categoryId: t.exposeInt("categoryId"),
    sectionId: t.exposeInt("sectionId"),
    threadId: t.exposeInt("threadId", { description: "The thread starter's id (a starter's own)." }),
    parentId: t.exposeInt("parentId", { description: "The post this one replies to (0: a starter)." }),
    starter: t.boolean({ description: "Whether this post starts its thread.", resolve: (post) => post.starter === 1 }),
    title: t.exposeString("title"),
    comment: t.exposeString("comment"),
    scope: t.exposeString("scope"),
    scopeId: t.exposeInt("scopeId"),
    state: t.exposeInt("state", { description: "1 published as readers see it (the post and, for a reply, its thread starter), 0 not." }),
    ownState: t.exposeInt("ownState", { description: "The post's own state (0 unpublished, 1 published), as its author or a moderator set it." }),
    access: t.field({ type: ForumAccess, description: FORUM_ACCESS.description, resolve: (post) => post.access }),
    anonymous: t.exposeInt("anonymous", { description: "1: the author is hidden from others." }),
    sticky: t.exposeInt("sticky"),
    closed: t.exposeInt("closed"),
    tags: t.exposeStringList("tags"),
    url: t.string({ resolve: (post) => scopedPath(post, "forum", String(post.threadId || post.id)) }),
    created: t.expose("created", { type: "DateTime" }),
    modified: t.expose("modified", { type: "DateTime" }),
    lastActivity: t.expose("lastActivity", { type: "DateTime", description: "Moves with replies (starters)." }),
    createdById: t.int({ nullable: true, description: "The author; null to others when the post is anonymous.", resolve: (post, _args, ctx) => (authorShown(ctx, post) ? post.createdById : null) }),
    createdBy: t.field({
      type: UserType,
      nullable: true,
      select: { createdBy: true },
      description: "The author; null to others when the post is anonymous.",
      resolve: (post, _args, ctx) => (authorShown(ctx, post) ? (post as ForumPost & { createdBy: never }).createdBy : null),
    }),
    postCount: t.int({
      description: "A thread's posts the caller may see (kept as they are written, per access level and state); 0 for replies.",
      resolve: async (post, _args, ctx) => (post.starter ? (await forumCounts(ctx, post.categoryId, post.id)).posts : 0),
    }),
    lastPostId: t.int({
      nullable: true,
      description: "A thread's last post the caller may see (null for replies).",
      resolve: (post, _args, ctx) => (post.starter ? lastVisiblePost(ctx, "thread", post.id) : null),
    }),
  }),
});

recordFields("ForumPost", {
  type: ForumPostType,
  plural: "forumPosts",
  read: { description: "One forum post the caller may see.", resolve: getForumPost },
  list: {
    description: "Forum posts the caller may see, filtered like GET /api/forum/list (threadsOnly: the threads).",
    spec: FORUM_LIST,
    filters: (t) => ({
      section: t.int({ defaultValue: 0, description: "All posts in the section's categories (0: any)." }),
      category: t.int({ defaultValue: 0, description: "All posts in the category (0: any)." }),
      threadsOnly: t.boolean({ defaultValue: false, description: "Only thread starter posts." }),
      parent: t.int({ description: "Immediate replies of this post." }),
      thread: t.int({ defaultValue: 0, description: "All posts of the thread (0: any)." }),
    }),
    resolve: (ctx, args, query) => listForumPosts(ctx, args as ForumListArgs, query),
  },
  create: { scope: "user", input: tableInput("CreateForumPostInput", FORUM_FIELDS, "create"), resolve: createForumPost },
  update: { scope: "user", input: tableInput("UpdateForumPostInput", FORUM_FIELDS, "update", "Only the given fields change."), resolve: updateForumPost },
  remove: { scope: "user", description: "Deletes the post (a starter takes its replies); returns its id.", resolve: deleteForumPost },
});

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
