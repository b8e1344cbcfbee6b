import { z } from "zod";
import DataLoader from "dataloader";
import { Prisma, type WikiRevision } from "../generated/prisma/client.js";
import { byKeys, defineLoader } from "../common/loaders.js";
import type { RequestContext } from "../common/context.js";
import { notFound } from "../common/errors.js";
import { DEFAULT_PAGE_SIZE, DEFAULT_SCOPE, describePage, pageWindow } from "../common/list-spec.js";
import { accessLevels, PUBLISH_STATE } from "../common/access.js";
import { defineArea } from "../common/area.js";
import { scopeKindField } from "../common/scope-kinds.js";
import { scopedPath } from "../common/scopes.js";
import { pagenameFromTitle } from "../common/slug.js";
import { parseId } from "../common/validation.js";
import { accessField, createdByField, createdField, stateField } from "../common/fields.js";
import { NOW, insertStatement, nextIdSql } from "../common/write-statements.js";
import { jsonDepth, jsonLength } from "../common/json-bounds.js";

/** Wiki access levels, as the API document numbers them. */
export const WIKI_ACCESS = accessLevels("WikiAccess", [
  { value: 0, level: "public" },
  { value: 1, level: "registered" },
  { value: 4, level: "private" },
], 0);

/** Page options: a JSON object, bounded so one page cannot carry a huge or pathologically deep document. */
const options = z
  .record(z.string(), z.unknown(), "must be an object")
  .refine((value) => jsonDepth(value, 8) <= 8, "must not be nested more than 8 levels deep")
  .refine((value) => jsonLength(value, 16_384) <= 16_384, "must not be larger than 16 KB as JSON");

const pagename = z.string().regex(/^[A-Za-z0-9_.:-]{1,255}$/, "may hold only letters, digits and _ . : - (at most 255)");

/** Revisions by id, batched per request: N pages asking for `version(versionId:)` cost one statement. */
const revisionsById = defineLoader(
  (ctx) =>
    new DataLoader<number, WikiRevision | null>(async (ids) =>
      byKeys(ids, await ctx.db.wikiRevision.findMany({ where: { id: { in: [...ids] } } }), (revision) => revision.id),
    ),
);

/**
 * Revision `versionId` of a visible page (the caller has read the page already). 0 or absent means
 * the newest approved revision, which the page carries as `currentRevision`.
 */
export async function getWikiRevision(ctx: RequestContext, page: { id: number; currentRevision: WikiRevision | null }, versionId?: number | null) {
  if (!versionId) return page.currentRevision;
  const revision = await revisionsById(ctx).load(versionId);
  if (!revision || revision.pageId !== page.id) throw notFound(`Wiki page ${page.id} has no revision ${versionId} (version_id).`);
  return revision;
}

/** `versionId` as clients send it: an ID, where "0" (like absent) means the newest approved revision. */
const revisionId = (versionId: string | null | undefined) => (versionId && versionId !== "0" ? parseId(versionId, "versionId") : null);

type ReadPage = { id: number; currentRevision: WikiRevision | null };
const VERSION_ID = { versionId: { type: "ID", description: "A revision id; 0 or absent for the newest approved." } } as const;
/** What the single-record rows answer beside the page's fragment: its text and revision. */
const WITH_TEXT = "pagetext version { ...WikiRevisionRest }";

/** The wiki: pages of a scope whose text lives in revisions (src/common/area.ts). */
export const WIKI = defineArea({
  area: "wiki",
  model: "WikiPage",
  plural: "wikiPages",
  label: "Wiki page",
  description: "A wiki page. Its text lives in revisions; `pagetext` is the newest approved one.",
  // The contract's access rule; published = state 1. The current text is searched in `searchText`, the
  // lower-cased copy the database keeps (prisma/schema/wiki.prisma).
  policy: { scoped: true, published: { field: "state", value: 1 }, access: WIKI_ACCESS, creator: "createdById", searchOnly: ["searchText"] },
  fields: {
    title: { type: "String", rule: z.string().trim().min(1, "must not be empty").max(255), required: true, rest: { description: "Page title." } },
    pagetext: { type: "String", rule: z.string().min(1, "must not be empty"), required: true, column: false, rest: { description: "Page content." } },
    pagename: {
      type: "String",
      rule: pagename,
      description: "Derived from the title when absent.",
      column: false,
      rest: { description: "Page name; derived from the title when absent." },
    },
    created: createdField,
    createdBy: createdByField,
    state: stateField,
    access: accessField(WIKI_ACCESS),
    scope: { type: "String", rule: scopeKindField, description: 'Default "site".', default: DEFAULT_SCOPE.scope, rest: { description: "Page scope.", privacy: true } },
    scopeId: { type: "Int", rule: z.number().int().min(0), description: "Default 0.", default: DEFAULT_SCOPE.scopeId, rest: { description: "Page scope ID.", privacy: true } },
    params: { type: "JSON", rule: options, description: "Page options (an object).", rest: { description: "Page options." } },
    // The new revision's, not the page's (POST /wiki does not take it: its row leaves it out).
    summary: {
      type: "String",
      rule: z.string().max(1024),
      description: { create: "Summary of the first revision.", update: "Summary of the changes made." },
      column: false,
      rest: { description: "Summary of changes made." },
    },
  },
  uniqueName: { field: "pagename", derive: (data) => pagenameFromTitle(data.title as string), separator: "_", label: "page name", taken: "This page name is not available in this scope." },
  shown: {
    id: true,
    title: true,
    pagename: "Unique within the page's scope.",
    created: true,
    createdById: { rest: "created_by" },
    modified: true,
    state: PUBLISH_STATE.description,
    access: { levels: WIKI_ACCESS, description: WIKI_ACCESS.description },
    scope: true,
    scopeId: true,
    params: true,
    // Computed from scalars: no `select` hint. Records always carry every scalar (the list kit reads all
    // columns, Prisma's include mode too), and a hint costs Pothos a check per record (docs/adding-an-area.md).
    url: { type: "String", resolve: (page: { scope: string; scopeId: number; pagename: string }) => scopedPath(page, "wiki", page.pagename) },
    revisionCount: { rest: "revisions", description: "Number of approved revisions (kept by the database)." },
    pagetext: {
      type: "String",
      rest: false,
      description: "The text of revision `versionId`, or of the newest approved revision.",
      args: VERSION_ID,
      select: { currentRevision: true },
      resolve: async (page: ReadPage, { versionId }: { versionId?: string | null }, ctx) => (await getWikiRevision(ctx, page, revisionId(versionId)))?.pagetext ?? "",
    },
    version: {
      type: "WikiRevision",
      nullable: true,
      rest: false,
      description: "Revision `versionId`, or the newest approved revision.",
      args: { versionId: { type: "ID" } },
      select: { currentRevision: true },
      resolve: (page: ReadPage, { versionId }: { versionId?: string | null }, ctx) => getWikiRevision(ctx, page, revisionId(versionId)),
    },
    revisions: {
      relation: true,
      description: "Revisions, newest first, paged like every list.",
      args: {
        limit: { type: "Int", default: DEFAULT_PAGE_SIZE, description: describePage().limit },
        start: { type: "Int", default: 0, description: describePage().start },
      },
      query: ({ limit, start }: { limit?: number | null; start?: number | null }) => ({ orderBy: { version: "desc" }, ...pageWindow({ limit, start }) }),
    },
    createdBy: { relation: true },
  },
  // The current revision is shown as `version`, its text as `pagetext`.
  hidden: ["currentRevisionId"],
  related: {
    WikiRevision: {
      description: "One saved version of a wiki page's text.",
      shown: {
        id: true,
        version: "1 for the first text, then counting up.",
        pagetext: true,
        summary: "Summary of the changes made.",
        approved: true,
        length: true,
        created: true,
        createdById: { rest: "created_by" },
        createdBy: { relation: true },
      },
    },
  },
  // The page and its first revision in one statement: each refers to the other, and the foreign keys are
  // checked when the statement ends. search_text is set here, as its trigger cannot see a revision inserted
  // by the same statement. A taken page name inserts neither (ON CONFLICT DO NOTHING).
  inserts: {
    statement: (ctx, records, values, data, userId) => Prisma.sql`
      ids AS (SELECT ${nextIdSql(ctx, "WikiPage")} AS page_id, ${nextIdSql(ctx, "WikiRevision")} AS revision_id),
      created AS (${insertStatement(
        ctx,
        records,
        {
          ...values,
          id: Prisma.sql`(SELECT page_id FROM ids)`,
          currentRevisionId: Prisma.sql`(SELECT revision_id FROM ids)`,
          // Its first revision, counted here: the revisions trigger then leaves the page alone.
          revisionCount: 1,
          searchText: Prisma.sql`lower(${data.pagetext as string})`,
        },
        { skipConflictOn: ["scope", "scopeId", "pagename"] },
      )}),
      revision AS (
        INSERT INTO wiki_revisions (id, page_id, version, pagetext, summary, length, created, created_by)
        SELECT ids.revision_id, created.id, 1, ${data.pagetext as string}, ${(data.summary as string | undefined) ?? ""}, ${(data.pagetext as string).length}, ${NOW}, ${userId} FROM ids, created
        RETURNING *)`,
    relations: { currentRevision: "revision" },
  },
  // New text becomes the next revision, in the page's statement; the same text as the current revision adds none.
  updates(_tx, id, data, page, userId) {
    const text = data.pagetext as string | null | undefined;
    if (text == null) return undefined;
    return {
      with: Prisma.sql`revision AS (
        INSERT INTO wiki_revisions (page_id, version, pagetext, summary, length, created, created_by)
        SELECT ${id}, coalesce(max(r.version), 0) + 1, ${text}, ${(data.summary as string | undefined) ?? ""}, ${text.length}, ${NOW}, ${userId}
          FROM wiki_revisions r WHERE r.page_id = ${id}
        HAVING NOT EXISTS (SELECT 1 FROM wiki_revisions c WHERE c.id = ${(page.currentRevisionId as number | null) ?? 0} AND c.pagetext = ${text})
        RETURNING id)`,
      values: {
        currentRevisionId: Prisma.sql`coalesce((SELECT id FROM revision), t.current_revision_id)`,
        searchText: Prisma.sql`CASE WHEN EXISTS (SELECT 1 FROM revision) THEN lower(${text}) ELSE t.search_text END`,
      },
    };
  },
  list: {
    description: "Wiki pages of one scope the caller may see, searched, sorted and paged like GET /api/wiki/list.",
    sortColumns: { id: "id", title: "title", pagename: "pagename", created: "created", modified: "modified", state: "state", access: "access" },
    defaults: { sort: "title", sortDir: "asc", limit: 25 },
    search: { in: "title or text", fields: ["title"], lowerCaseFields: ["searchText"] },
  },
  read: { description: "One wiki page the caller may see." },
  writes: {
    by: "users",
    forbidden: "Only the creator, a group manager or an administrator can change this page.",
    names: ["title", "pagename"],
    update: "Only the given fields change. New `pagetext` adds a revision with `summary`.",
    remove: "Deletes the page and its revisions; returns its id.",
  },
  events: {
    pageCreated: "A page was created, with its first revision.",
    pageUpdated: "A page's fields changed; `changed` names them (`currentRevisionId` when its text got a new revision).",
    pageDeleted: "A page and its revisions were deleted.",
  },
  // To its scope and its author, as far as they may read it, as long as they may.
  activity: {
    describe: (event) => `Wiki page created: ${String(event.payload.title ?? event.payload.pagename ?? event.recordId)}`,
    follows: ["wiki.pageUpdated", "wiki.pageDeleted"],
  },
  rest: {
    versions: ["1.0"],
    id: { description: "Page identifier.", default: 0 },
    create: { path: "/wiki", task: "create a page", except: ["summary"], selection: WITH_TEXT },
    list: { path: "/wiki/list", task: "list pages", key: "pages" },
    remove: { path: "/wiki/{id}", task: "delete a page" },
    read: {
      path: "/wiki/{id}",
      task: "read a page",
      params: [
        {
          name: "version_id",
          type: "integer",
          required: false,
          default: 0,
          description: "Revision ID (0: the newest approved revision).",
          variable: "versionId",
          graphqlType: "ID",
        },
      ],
      selection: "pagetext(versionId: $versionId) version(versionId: $versionId) { ...WikiRevisionRest }",
    },
    replace: { path: "/wiki/{id}", task: "update a page", selection: WITH_TEXT },
  },
});
