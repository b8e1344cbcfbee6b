import { z } from "zod";
import DataLoader from "dataloader";
import { Prisma, type WikiPage, type WikiRevision } from "../generated/prisma/client.js";
import { byKeys, defineLoader } from "../common/loaders.js";
import type { RequestContext } from "../common/context.js";
import { notFound } from "../common/errors.js";
import { DEFAULT_SCOPE, listSpec, pagedList, type ListArgs } from "../common/paging.js";
import { accessLevels } from "../common/access.js";
import { changedRecord, createdRecord, findVisible, records, type Selection } from "../common/records.js";
import { scopeKindField } from "../common/scope-kinds.js";
import { assertCanWriteInScope, requireUser, resolveCreator } from "../common/scopes.js";
import { assertNameFree, createWithUniqueName, pagenameFromTitle, takenNames } from "../common/slug.js";
import { changesNothing, parseInput, type RawInput } from "../common/validation.js";
import { accessField, columnValues, createdByField, createdField, fieldTable, stateField } from "../common/fields.js";
import { writeFailure } from "../db/errors.js";
import { domainEvents } from "../common/events.js";
import { NOW, changeRecord, createRecord, deleteRecord, insertStatement, nextIdSql, updateStatement, writtenRecords } from "../common/write-path.js";
import { jsonDepth, jsonLength } from "../common/json-bounds.js";

/** Wiki access levels, as the API document numbers them. */
export const WIKI_ACCESS = accessLevels("WikiAccess", [
  { value: 0, level: "public" },
  { value: 1, level: "registered" },
  { value: 4, level: "private" },
], 0);

/**
 * Wiki pages and who sees them (the contract's access rule; published = state 1). The current text is
 * searched in `searchText`, the lower-cased copy the database keeps (prisma/schema/wiki.prisma).
 */
export const WIKI_PAGES = records({
  model: "WikiPage",
  scoped: true,
  published: { field: "state", value: 1 },
  access: WIKI_ACCESS,
  creator: "createdById",
  searchOnly: ["searchText"],
});

/** GET /wiki/list and `wikiPages`: sort whitelist, defaults, scope and search. */
export const WIKI_LIST = listSpec({
  records: WIKI_PAGES,
  sortColumns: { id: "id", title: "title", pagename: "pagename", created: "created", modified: "modified", state: "state", access: "access" },
  defaults: { sort: "title", sortDir: "asc", limit: 25 },
  search: { in: "title or text", fields: ["title"], lowerCaseFields: ["searchText"] },
});

type Query = { include?: Prisma.WikiPageInclude; select?: Prisma.WikiPageSelect };

/** Page options: a JSON object, bounded so one page cannot carry a huge or pathologically deep document. */
const options = z
  .record(z.string(), z.unknown(), "must be an object")
  .refine((value) => jsonDepth(value, 8) <= 8, "must not be nested more than 8 levels deep")
  .refine((value) => jsonLength(value, 16_384) <= 16_384, "must not be larger than 16 KB as JSON");

const pagename = z.string().regex(/^[A-Za-z0-9_.:-]{1,255}$/, "may hold only letters, digits and _ . : - (at most 255)");

/** The wiki's field table (src/common/fields.ts): its inputs, their rules, columns and REST parameters. */
export const WIKI_FIELDS = fieldTable({
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
});

export type CreateWikiPage = RawInput<typeof WIKI_FIELDS.create>;
export type UpdateWikiPage = RawInput<typeof WIKI_FIELDS.update>;

type ReadPage = WikiPage & { currentRevision?: WikiRevision | null };

export function listWikiPages(ctx: RequestContext, args: ListArgs, query: Query = {}) {
  return pagedList<ReadPage>(WIKI_LIST, ctx, args, query as Selection);
}

/** A page the caller may see, or 404 (pages the caller may not see do not exist for them). */
export async function getWikiPage(ctx: RequestContext, id: number, query: Query = {}) {
  const page = await findVisible<ReadPage>(ctx, WIKI_PAGES, id, query as Selection);
  if (!page) throw notFound(`Wiki page ${id} not found.`);
  return page;
}

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

/** The wiki's domain events (docs/events.md). */
export const WIKI_EVENTS = domainEvents("wiki", {
  pageCreated: "A page was created, with its first revision.",
  pageUpdated: "A page's fields changed; `changed` names them (`currentRevisionId` when its text got a new revision).",
  pageDeleted: "A page and its revisions were deleted.",
});

/** Wiki pages on the write path (src/common/write-path.ts). */
export const WIKI_WRITES = writtenRecords({
  area: "wiki",
  changedSubscription: "wikiPageChanged",
  records: WIKI_PAGES,
  names: ["title", "pagename"],
  notFound: (id) => `Wiki page ${id} not found.`,
  forbidden: "Only the creator, a group manager or an administrator can change this page.",
});

const NAME_TAKEN = { parameter: "pagename", message: "This page name is not available in this scope.", column: "pagename" };
const pageNames = (ctx: RequestContext, scope: { scope: string; scopeId: number }, exceptId?: number) => takenNames(ctx, WIKI_PAGES, "pagename", scope, exceptId);

export async function createWikiPage(ctx: RequestContext, input: CreateWikiPage, query: Query = {}) {
  const user = requireUser(ctx);
  const data = parseInput(WIKI_FIELDS.create, input);
  const values = columnValues(WIKI_FIELDS, data, "create");
  const scope = { scope: values.scope as string, scopeId: values.scopeId as number };
  const createdById = await resolveCreator(ctx, data.createdBy, user.id);

  // The page and its first revision in one statement: each refers to the other, and the foreign keys are
  // checked when the statement ends. search_text is set here, as its trigger cannot see a revision inserted
  // by the same statement. A taken page name inserts neither (ON CONFLICT DO NOTHING).
  const page = await createWithUniqueName({
    requested: data.pagename,
    derivedFrom: pagenameFromTitle(data.title),
    separator: "_",
    parameter: "pagename",
    label: "page name",
    taken: pageNames(ctx, scope),
    insert: (name) =>
      createRecord<WikiPage>(ctx, WIKI_WRITES, {
        event: WIKI_EVENTS.pageCreated,
        scope,
        answer: { query: query as Selection, relations: { currentRevision: "revision" } },
        inserted: Prisma.sql`
          ids AS (SELECT ${nextIdSql(ctx, "WikiPage")} AS page_id, ${nextIdSql(ctx, "WikiRevision")} AS revision_id),
          created AS (${insertStatement(
            ctx,
            WIKI_PAGES,
            {
              ...values,
              id: Prisma.sql`(SELECT page_id FROM ids)`,
              pagename: name,
              createdById,
              currentRevisionId: Prisma.sql`(SELECT revision_id FROM ids)`,
              // Its first revision, counted here: the revisions trigger then leaves the page alone.
              revisionCount: 1,
              searchText: Prisma.sql`lower(${data.pagetext})`,
            },
            { skipConflictOn: ["scope", "scopeId", "pagename"] },
          )}),
          revision AS (
            INSERT INTO wiki_revisions (id, page_id, version, pagetext, summary, length, created, created_by)
            SELECT ids.revision_id, created.id, 1, ${data.pagetext}, ${data.summary ?? ""}, ${data.pagetext.length}, ${NOW}, ${user.id} FROM ids, created
            RETURNING *)`,
      }),
  });
  return createdRecord<ReadPage>(ctx, WIKI_PAGES, page, query as Selection);
}

/**
 * Changes the given fields only. A changed `pagetext` becomes a new approved revision carrying
 * `summary`; unchanged text adds no revision. Answers the page as the caller may read it: null when the
 * caller may change it but not read it (a group manager and a member's draft).
 */
export async function updateWikiPage(ctx: RequestContext, id: number, input: UpdateWikiPage, query: Query = {}) {
  const user = requireUser(ctx);
  const data = parseInput(WIKI_FIELDS.update, input);
  await changeRecord<WikiPage>(ctx, WIKI_WRITES, id, {
    event: WIKI_EVENTS.pageUpdated,
    async change(tx, page) {
      if (changesNothing(data)) return { row: page, changed: [] };
      const scope = { scope: data.scope ?? page.scope, scopeId: data.scopeId ?? page.scopeId };
      if (scope.scope !== page.scope || scope.scopeId !== page.scopeId) await assertCanWriteInScope(tx, scope.scope, scope.scopeId);
      const name = data.pagename ?? page.pagename;
      if (name !== page.pagename || scope.scope !== page.scope || scope.scopeId !== page.scopeId) {
        await assertNameFree(name, pageNames(tx, scope, id), "pagename", "page name");
      }
      const createdBy = await resolveCreator(tx, data.createdBy, page.createdById);
      const fields = { ...columnValues(WIKI_FIELDS, { ...data, createdBy }, "update"), pagename: name, ...scope };
      if (data.pagetext == null) return { update: updateStatement(tx, WIKI_PAGES, id, fields) };
      // New text becomes the next revision, in the page's statement; the same text as the current revision adds none.
      return {
        with: Prisma.sql`revision AS (
          INSERT INTO wiki_revisions (page_id, version, pagetext, summary, length, created, created_by)
          SELECT ${id}, coalesce(max(r.version), 0) + 1, ${data.pagetext}, ${data.summary ?? ""}, ${data.pagetext.length}, ${NOW}, ${user.id}
            FROM wiki_revisions r WHERE r.page_id = ${id}
          HAVING NOT EXISTS (SELECT 1 FROM wiki_revisions c WHERE c.id = ${page.currentRevisionId ?? 0} AND c.pagetext = ${data.pagetext})
          RETURNING id)`,
        update: updateStatement(tx, WIKI_PAGES, id, {
          ...fields,
          currentRevisionId: Prisma.sql`coalesce((SELECT id FROM revision), t.current_revision_id)`,
          searchText: Prisma.sql`CASE WHEN EXISTS (SELECT 1 FROM revision) THEN lower(${data.pagetext}) ELSE t.search_text END`,
        }),
      };
    },
  }).catch(writeFailure({ conflict: NAME_TAKEN, missing: `Wiki page ${id} not found.` }));
  return changedRecord<ReadPage>(ctx, WIKI_PAGES, id, query as Selection);
}

/** Deletes a page and its revisions: the creator, a group manager or an administrator. */
export async function deleteWikiPage(ctx: RequestContext, id: number): Promise<number> {
  return deleteRecord(ctx, WIKI_WRITES, id, WIKI_EVENTS.pageDeleted);
}
