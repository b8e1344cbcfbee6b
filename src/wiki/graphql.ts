import { builder } from "../graphql/builder.js";
import "./activity.js";
// What deleting a group does to its pages (src/groups/content.ts).
import "./group-content.js";
import { tableInput } from "../graphql/fields.js";
import { accessEnum } from "../graphql/access.js";
import { PUBLISH_STATE } from "../common/access.js";
import { recordFields } from "../graphql/crud.js";
import { parseId } from "../common/validation.js";
import { DEFAULT_PAGE_SIZE, describePage, pageWindow } from "../common/paging.js";
import { scopedPath } from "../common/scopes.js";
import {
  WIKI_ACCESS,
  WIKI_FIELDS,
  WIKI_LIST,
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


const WikiAccess = accessEnum(WIKI_ACCESS);

/** `versionId` as clients send it: an ID, where "0" (like absent) means the newest approved revision. */
const revisionId = (versionId: string | null | undefined) => (versionId && versionId !== "0" ? parseId(versionId, "versionId") : null);

export const WikiPageType = builder.prismaObject("WikiPage", {
  description: "A wiki page. Its text lives in revisions; `pagetext` is the newest approved one.",
  fields: (t) => ({
    id: t.exposeID("id"),
    title: t.exposeString("title"),
    pagename: t.exposeString("pagename", { description: "Unique within the page's scope." }),
    pagetext: t.string({
      description: "The text of revision `versionId`, or of the newest approved revision.",
      args: { versionId: t.arg.id({ description: "A revision id; 0 or absent for the newest approved." }) },
      select: { currentRevision: true },
      resolve: async (page, { versionId }, ctx) => (await getWikiRevision(ctx, page, revisionId(versionId)))?.pagetext ?? "",
    }),
    version: t.field({
      type: WikiRevisionType,
      nullable: true,
      description: "Revision `versionId`, or the newest approved revision.",
      args: { versionId: t.arg.id() },
      select: { currentRevision: true },
      resolve: (page, { versionId }, ctx) => getWikiRevision(ctx, page, revisionId(versionId)),
    }),
    revisions: t.relation("revisions", {
      description: "Revisions, newest first, paged like every list.",
      args: {
        limit: t.arg.int({ defaultValue: DEFAULT_PAGE_SIZE, description: describePage().limit }),
        start: t.arg.int({ defaultValue: 0, description: describePage().start }),
      },
      query: ({ limit, start }) => ({ orderBy: { version: "desc" }, ...pageWindow({ limit, start }) }),
    }),
    revisionCount: t.exposeInt("revisionCount", { description: "Number of approved revisions (kept by the database)." }),
    state: t.exposeInt("state", { description: PUBLISH_STATE.description }),
    access: t.field({ type: WikiAccess, description: WIKI_ACCESS.description, resolve: (page) => page.access }),
    scope: t.exposeString("scope"),
    scopeId: t.exposeInt("scopeId"),
    params: t.expose("params", { type: "JSON" }),
    // Computed from scalars: no `select` hint. Records always carry every scalar (the list kit reads all
    // columns, Prisma's include mode too), and a hint costs Pothos a check per record (docs/adding-an-area.md).
    url: t.string({
      resolve: (page) => scopedPath(page, "wiki", page.pagename),
    }),
    created: t.expose("created", { type: "DateTime" }),
    modified: t.expose("modified", { type: "DateTime" }),
    createdById: t.exposeInt("createdById"),
    createdBy: t.relation("createdBy"),
  }),
});

recordFields("WikiPage", {
  type: WikiPageType,
  plural: "wikiPages",
  read: { description: "One wiki page the caller may see.", resolve: getWikiPage },
  list: {
    description: "Wiki pages of one scope the caller may see, searched, sorted and paged like GET /api/wiki/list.",
    spec: WIKI_LIST,
    resolve: listWikiPages,
  },
  create: { scope: "user", input: tableInput("CreateWikiPageInput", WIKI_FIELDS, "create"), resolve: createWikiPage },
  update: {
    scope: "user",
    input: tableInput("UpdateWikiPageInput", WIKI_FIELDS, "update", "Only the given fields change. New `pagetext` adds a revision with `summary`."),
    resolve: updateWikiPage,
  },
  remove: { scope: "user", description: "Deletes the page and its revisions; returns its id.", resolve: deleteWikiPage },
});
