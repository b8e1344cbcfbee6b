import { z } from "zod";
import DataLoader from "dataloader";
import type { Prisma, WikiPage, WikiRevision } from "../generated/prisma/client.js";
import { byKeys, defineLoader } from "../common/loaders.js";
import type { RequestContext } from "../common/context.js";
import { notFound } from "../common/errors.js";
import { listSpec, pagedList, type ListArgs } from "../common/paging.js";
import { PUBLISH_STATE, accessLevels } from "../common/access.js";
import { changedRecord, findVisible, isVisible, records, type Selection } from "../common/records.js";
import { scopeKindField } from "../common/scope-kinds.js";
import { assertCanWriteInScope, recordToChange, requireUser, resolveCreator } from "../common/scopes.js";
import { assertNameFree, pagenameFromTitle, pickUniqueName } from "../common/slug.js";
import { changesNothing, parseInput, timestamp, type RawInput } from "../common/validation.js";
import { startsWithText } from "../common/search.js";
import { retryDerivedName, writeFailure } from "../db/errors.js";
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
const fields = {
  title: z.string().trim().min(1, "must not be empty").max(255),
  pagename: pagename.optional().nullable(),
  pagetext: z.string().min(1, "must not be empty"),
  created: timestamp.optional().nullable(),
  createdBy: z.number().int().min(0).optional().nullable(),
  state: PUBLISH_STATE.schema.optional().nullable(),
  access: WIKI_ACCESS.schema.optional().nullable(),
  scope: scopeKindField.optional().nullable(),
  scopeId: z.number().int().min(0).optional().nullable(),
  params: options.optional().nullable(),
  summary: z.string().max(1024).optional().nullable(),
};
const createInput = z.object(fields);
const updateInput = z.object({ ...fields, title: fields.title.nullish(), pagetext: fields.pagetext.nullish() });

export type CreateWikiPage = RawInput<typeof createInput>;
export type UpdateWikiPage = RawInput<typeof updateInput>;

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

async function wikiPageToChange(ctx: RequestContext, id: number) {
  return recordToChange(
    ctx,
    await ctx.db.wikiPage.findUnique({ where: { id } }),
    () => isVisible(ctx, WIKI_PAGES, id),
    `Wiki page ${id} not found.`,
    "Only the creator, a group manager or an administrator can change this page.",
  );
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

async function takenPagenames(tx: Prisma.TransactionClient, scope: string, scopeId: number, base: string, exceptId?: number) {
  const rows = await tx.wikiPage.findMany({
    where: { scope, scopeId, pagename: startsWithText(base), ...(exceptId ? { NOT: { id: exceptId } } : {}) },
    select: { pagename: true },
  });
  return new Set(rows.map((row) => row.pagename));
}

export async function createWikiPage(ctx: RequestContext, input: CreateWikiPage, query: Query = {}) {
  const user = requireUser(ctx);
  const data = parseInput(createInput, input);
  const scope = data.scope ?? "site";
  const scopeId = data.scopeId ?? 0;
  await assertCanWriteInScope(ctx, scope, scopeId);
  const createdById = await resolveCreator(ctx, data.createdBy, user.id);

  const id = await retryDerivedName(!data.pagename, () =>
    ctx.db.$transaction(async (tx) => {
      const name = await pickUniqueName({
        requested: data.pagename,
        derivedFrom: pagenameFromTitle(data.title),
        separator: "_",
        parameter: "pagename",
        label: "page name",
        taken: (prefix) => takenPagenames(tx, scope, scopeId, prefix),
      });
      const page = await tx.wikiPage.create({
        data: {
          title: data.title,
          pagename: name,
          scope,
          scopeId,
          state: data.state ?? 0,
          access: data.access ?? WIKI_ACCESS.fallback,
          params: (data.params ?? {}) as Prisma.InputJsonObject,
          ...(data.created ? { created: data.created } : {}),
          createdById,
        },
      });
      const revision = await tx.wikiRevision.create({
        data: {
          pageId: page.id,
          version: 1,
          pagetext: data.pagetext,
          summary: data.summary ?? "",
          length: data.pagetext.length,
          createdById: user.id,
        },
      });
      await tx.wikiPage.update({ where: { id: page.id }, data: { currentRevisionId: revision.id } });
      return page.id;
    }),
  ).catch(writeFailure({ conflict: { parameter: "pagename", message: "This page name is not available in this scope." } }));
  return ctx.db.wikiPage.findUniqueOrThrow({ ...query, where: { id } });
}

/**
 * Changes the given fields only. A changed `pagetext` becomes a new approved revision carrying
 * `summary`; unchanged text adds no revision. Answers the page as the caller may read it: null when the
 * caller may change it but not read it (a group manager and a member's draft).
 */
export async function updateWikiPage(ctx: RequestContext, id: number, input: UpdateWikiPage, query: Query = {}) {
  const user = requireUser(ctx);
  const page = await wikiPageToChange(ctx, id);
  const data = parseInput(updateInput, input);
  if (changesNothing(data)) return changedRecord<ReadPage>(ctx, WIKI_PAGES, id, query as Selection);
  const scope = data.scope ?? page.scope;
  const scopeId = data.scopeId ?? page.scopeId;
  if (scope !== page.scope || scopeId !== page.scopeId) await assertCanWriteInScope(ctx, scope, scopeId);
  const createdById = await resolveCreator(ctx, data.createdBy, page.createdById);

  await ctx.db
    .$transaction(async (tx) => {
      // Concurrent edits of one page wait here, so each numbers its revision after the last committed one.
      await tx.$queryRaw`SELECT id FROM wiki_pages WHERE id = ${id} FOR UPDATE`;
      const name = data.pagename ?? page.pagename;
      if (name !== page.pagename || scope !== page.scope || scopeId !== page.scopeId) {
        await assertNameFree(name, (prefix) => takenPagenames(tx, scope, scopeId, prefix, id), "pagename", "page name");
      }
      let currentRevisionId: number | undefined;
      const current = page.currentRevisionId
        ? await tx.wikiRevision.findUnique({ where: { id: page.currentRevisionId }, select: { pagetext: true } })
        : null;
      if (data.pagetext != null && data.pagetext !== current?.pagetext) {
        const last = await tx.wikiRevision.aggregate({ where: { pageId: id }, _max: { version: true } });
        const revision = await tx.wikiRevision.create({
          data: {
            pageId: id,
            version: (last._max.version ?? 0) + 1,
            pagetext: data.pagetext,
            summary: data.summary ?? "",
            length: data.pagetext.length,
            createdById: user.id,
          },
        });
        currentRevisionId = revision.id;
      }
      await tx.wikiPage.update({
        where: { id },
        data: {
          title: data.title ?? undefined,
          pagename: name,
          scope,
          scopeId,
          state: data.state ?? undefined,
          access: data.access ?? undefined,
          params: (data.params ?? undefined) as Prisma.InputJsonObject | undefined,
          created: data.created ?? undefined,
          createdById,
          currentRevisionId,
        },
      });
    })
    .catch(writeFailure({ conflict: { parameter: "pagename", message: "This page name is not available in this scope." }, missing: `Wiki page ${id} not found.` }));
  return changedRecord<ReadPage>(ctx, WIKI_PAGES, id, query as Selection);
}

/** Deletes a page and its revisions: the creator, a group manager or an administrator. */
export async function deleteWikiPage(ctx: RequestContext, id: number): Promise<number> {
  await wikiPageToChange(ctx, id);
  await ctx.db.wikiPage.delete({ where: { id } }).catch(writeFailure({ missing: `Wiki page ${id} not found.` }));
  return id;
}
