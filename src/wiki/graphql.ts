import { queryFromInfo } from "@pothos/plugin-prisma";
import { builder, type Types } from "../graphql/builder.js";
import { listType, pagingArgs } from "../graphql/list.js";
import { parseId } from "../common/validation.js";
import { pageWindow } from "../common/paging.js";
import { scopedPath } from "../common/scopes.js";
import {
  createWikiPage,
  deleteWikiPage,
  getWikiPage,
  getWikiRevision,
  listWikiPages,
  updateWikiPage,
} from "./service.js";

export const WikiRevisionType = builder.prismaObject("WikiRevision", {
  description: "One saved version of a wiki page's text.",
  fields: (t) => ({
    id: t.exposeID("id"),
    version: t.exposeInt("version", { description: "1 for the first text, then counting up." }),
    pagetext: t.exposeString("pagetext"),
    summary: t.exposeString("summary", { description: "Summary of the changes made." }),
    approved: t.exposeBoolean("approved"),
    length: t.exposeInt("length"),
    created: t.expose("created", { type: "DateTime" }),
    createdById: t.exposeInt("createdById"),
    createdBy: t.relation("createdBy"),
  }),
});


export const WikiPageType = builder.prismaObject("WikiPage", {
  description: "A wiki page. Its text lives in revisions; `pagetext` is the newest approved one.",
  fields: (t) => ({
    id: t.exposeID("id"),
    title: t.exposeString("title"),
    pagename: t.exposeString("pagename", { description: "Unique within the page's scope." }),
    pagetext: t.string({
      description: "The text of revision `versionId`, or of the newest approved revision.",
      args: { versionId: t.arg.id({ description: "A revision id; 0 or absent for the newest approved." }) },
      select: { currentRevision: { select: { pagetext: true } } },
      resolve: async (page, { versionId }, ctx) =>
        versionId && versionId !== "0"
          ? (await getWikiRevision(ctx, page.id, parseId(versionId, "versionId")))!.pagetext
          : (page.currentRevision?.pagetext ?? ""),
    }),
    version: t.field({
      type: WikiRevisionType,
      nullable: true,
      description: "Revision `versionId`, or the newest approved revision.",
      args: { versionId: t.arg.id() },
      resolve: (page, { versionId }, ctx) =>
        getWikiRevision(ctx, page.id, versionId && versionId !== "0" ? parseId(versionId, "versionId") : null),
    }),
    revisions: t.relation("revisions", {
      description: "Revisions, newest first, paged like every list.",
      args: {
        limit: t.arg.int({ defaultValue: 25, description: "Page size; 0 means the maximum (100); larger values become 100." }),
        start: t.arg.int({ defaultValue: 0 }),
      },
      query: ({ limit, start }) => ({ orderBy: { version: "desc" }, ...pageWindow({ limit, start }) }),
    }),
    revisionCount: t.relationCount("revisions", { where: { approved: true }, description: "Number of approved revisions." }),
    state: t.exposeInt("state", { description: "0 unpublished, 1 published." }),
    access: t.exposeInt("access", { description: "0 public, 1 registered users, 4 private." }),
    scope: t.exposeString("scope"),
    scopeId: t.exposeInt("scopeId"),
    params: t.expose("params", { type: "JSON" }),
    url: t.string({
      select: { scope: true, scopeId: true, pagename: true },
      resolve: (page) => scopedPath(page, "wiki", page.pagename),
    }),
    created: t.expose("created", { type: "DateTime" }),
    modified: t.expose("modified", { type: "DateTime" }),
    createdById: t.exposeInt("createdById"),
    createdBy: t.relation("createdBy"),
  }),
});

const WikiPageList = listType("WikiPageList", WikiPageType);

builder.queryField("wikiPage", (t) =>
  t.prismaField({
    type: "WikiPage",
    description: "One wiki page the caller may see.",
    authScopes: { public: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, { id }, ctx) => getWikiPage(ctx, parseId(id), query),
  }),
);

builder.queryField("wikiPages", (t) =>
  t.field({
    type: WikiPageList,
    description: "Wiki pages of one scope the caller may see, searched, sorted and paged like GET /api/wiki/list.",
    authScopes: { public: true },
    args: {
      search: t.arg.string({ description: "Word or phrase in the title or text." }),
      scope: t.arg.string({ defaultValue: "site" }),
      scopeId: t.arg.int({ defaultValue: 0 }),
      ...pagingArgs({ sort: "title", sortDir: "asc" }),
    },
    resolve: (_root, args, ctx, info) =>
      listWikiPages(ctx, args, queryFromInfo({ context: ctx, info, typeName: "WikiPage", path: ["items"] })),
  }),
);

const wikiFields = (t: PothosSchemaTypes.InputFieldBuilder<Types, "InputObject">) => ({
  pagename: t.string({ description: "Derived from the title when absent." }),
  created: t.field({ type: "DateTime" }),
  createdBy: t.int({ description: "0 or absent: the caller. Another user: administrators only." }),
  state: t.int({ description: "0 unpublished (default), 1 published." }),
  access: t.int({ description: "0 public (default), 1 registered users, 4 private." }),
  scope: t.string({ description: 'Default "site".' }),
  scopeId: t.int({ description: "Default 0." }),
  params: t.field({ type: "JSON", description: "Page options (an object)." }),
});

const CreateWikiPageInput = builder.inputType("CreateWikiPageInput", {
  fields: (t) => ({
    title: t.string({ required: true }),
    pagetext: t.string({ required: true }),
    summary: t.string({ description: "Summary of the first revision." }),
    ...wikiFields(t),
  }),
});

const UpdateWikiPageInput = builder.inputType("UpdateWikiPageInput", {
  description: "Only the given fields change. New `pagetext` adds a revision with `summary`.",
  fields: (t) => ({
    title: t.string(),
    pagetext: t.string(),
    summary: t.string({ description: "Summary of the changes made." }),
    ...wikiFields(t),
  }),
});

builder.mutationField("createWikiPage", (t) =>
  t.prismaField({
    type: "WikiPage",
    authScopes: { user: true },
    args: { input: t.arg({ type: CreateWikiPageInput, required: true }) },
    resolve: (query, _root, { input }, ctx) => createWikiPage(ctx, input, query),
  }),
);

builder.mutationField("updateWikiPage", (t) =>
  t.prismaField({
    type: "WikiPage",
    authScopes: { user: true },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateWikiPageInput, required: true }) },
    resolve: (query, _root, { id, input }, ctx) => updateWikiPage(ctx, parseId(id), input, query),
  }),
);

builder.mutationField("deleteWikiPage", (t) =>
  t.field({
    type: "ID",
    description: "Deletes the page and its revisions; returns its id.",
    authScopes: { user: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => deleteWikiPage(ctx, parseId(id)),
  }),
);
