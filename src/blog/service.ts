import { z } from "zod";
import { Prisma, type BlogEntry } from "../generated/prisma/client.js";
import type { RequestContext } from "../common/context.js";
import { notFound } from "../common/errors.js";
import { listSpec, pagedList, type ListArgs } from "../common/paging.js";
import { accessLevels } from "../common/access.js";
import { changedRecord, createdRecord, findVisible, records, type Selection } from "../common/records.js";
import { describeScopeKinds, scopeKindField } from "../common/scope-kinds.js";
import { accessField, columnValues, createdByField, createdField, fieldTable, stateField, tagsField } from "../common/fields.js";
import { assertCanWriteInScope, requireUser, resolveCreator } from "../common/scopes.js";
import { aliasFromTitle, assertNameFree, createWithUniqueName, takenNames } from "../common/slug.js";
import { changesNothing, parseInput, timestamp, type RawInput, assertPublishingWindow } from "../common/validation.js";
import { writeFailure } from "../db/errors.js";
import { domainEvents } from "../common/events.js";
import { changeRecord, createRecord, deleteRecord, insertStatement, updateStatement, writtenRecords } from "../common/write-path.js";

/** Blog access levels: 0 (the documented default, not a level of its own) is public, as 1 is. */
export const BLOG_ACCESS = accessLevels("BlogAccess", [
  { value: 0, level: "public", graphqlName: "NOT_SET", label: "not set (public)" },
  { value: 1, level: "public" },
  { value: 2, level: "registered" },
  { value: 5, level: "private" },
], 0);

/** Blog entries and who sees them (the contract's access rule; published = state 1 inside the publishing window). */
export const BLOG_ENTRIES = records({
  model: "BlogEntry",
  scoped: true,
  published: { field: "state", value: 1 },
  window: { up: "publishUp", down: "publishDown" },
  access: BLOG_ACCESS,
  creator: "createdById",
});

/** GET /blog/list and `blogEntries`: sort whitelist, defaults, scope and search. */
export const BLOG_LIST = listSpec({
  records: BLOG_ENTRIES,
  sortColumns: {
    id: "id",
    title: "title",
    alias: "alias",
    created: "created",
    modified: "modified",
    publish_up: "publishUp",
    publish_down: "publishDown",
    hits: "hits",
    state: "state",
    access: "access",
  },
  defaults: { sort: "created", sortDir: "desc", limit: 25 },
  search: { in: "title or content", fields: ["title", "content"] },
});

type Query = { include?: Prisma.BlogEntryInclude; select?: Prisma.BlogEntrySelect };

const alias = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[a-z0-9][a-z0-9-]{0,254}$/, "may hold only letters, digits and hyphens, starting with a letter or digit (at most 255)");

/** The blog's field table (src/common/fields.ts): its inputs, their rules, columns and REST parameters. */
export const BLOG_FIELDS = fieldTable({
  // Required to create an entry; a PUT that leaves them out keeps the entry where it is.
  scope: {
    type: "String",
    rule: scopeKindField,
    required: "create",
    description: { create: () => `${describeScopeKinds()}.` },
    rest: { description: () => `${describeScopeKinds()}.`, privacy: true },
  },
  scopeId: {
    type: "Int",
    rule: z.number().int().min(0),
    required: "create",
    description: { create: "The scope's record id (0 for site)." },
    rest: { description: "Scope object ID.", privacy: true },
  },
  title: { type: "String", rule: z.string().trim().min(1, "must not be empty").max(255), required: true, rest: { description: "Entry title." } },
  content: { type: "String", rule: z.string().min(1, "must not be empty"), required: true, rest: { description: "Entry content." } },
  alias: { type: "String", rule: alias, description: "Derived from the title when absent.", rest: { description: "Entry alias; derived from the title when absent." } },
  tags: tagsField,
  created: createdField,
  createdBy: createdByField,
  state: stateField,
  access: accessField(BLOG_ACCESS),
  allowComments: {
    type: "Int",
    rule: z.union([z.literal(0), z.literal(1)], "must be 0 (no comments) or 1 (comments allowed)"),
    description: "1 comments allowed (default), 0 not.",
    default: 1,
    rest: { description: "Allow comments (1) or not (0)." },
  },
  publishUp: { type: "DateTime", rule: timestamp, description: "Start of the publishing window; default now.", default: "now", rest: { description: "Publish start timestamp." } },
  // null removes the end (the window stays open).
  publishDown: {
    type: "DateTime",
    rule: timestamp,
    description: "End of the publishing window; must be after publishUp.",
    clearedTo: null,
    rest: { description: "Publish end timestamp." },
  },
  hits: { type: "Int", rule: z.number().int().min(0), only: "update", description: "Number of views, kept by clients.", default: 0, rest: { description: "Record hits." } },
});

export type CreateBlogEntry = RawInput<typeof BLOG_FIELDS.create>;
export type UpdateBlogEntry = RawInput<typeof BLOG_FIELDS.update>;

export function listBlogEntries(ctx: RequestContext, args: ListArgs, query: Query = {}) {
  return pagedList<BlogEntry>(BLOG_LIST, ctx, args, query as Selection);
}

/** An entry the caller may see, or 404 (entries the caller may not see do not exist for them). */
export async function getBlogEntry(ctx: RequestContext, id: number, query: Query = {}) {
  const entry = await findVisible<BlogEntry>(ctx, BLOG_ENTRIES, id, query as Selection);
  if (!entry) throw notFound(`Blog entry ${id} not found.`);
  return entry;
}

/** The blog's domain events (docs/events.md). */
export const BLOG_EVENTS = domainEvents("blog", {
  entryCreated: "An entry was created.",
  entryUpdated: "An entry's fields changed; `changed` names them.",
  entryDeleted: "An entry was deleted.",
});

/** Blog entries on the write path (src/common/write-path.ts). */
export const BLOG_WRITES = writtenRecords({
  area: "blog",
  changedSubscription: "blogEntryChanged",
  records: BLOG_ENTRIES,
  names: ["title", "alias", "publishUp", "publishDown"],
  notFound: (id) => `Blog entry ${id} not found.`,
  forbidden: "Only the creator, a group manager or an administrator can change this entry.",
});

const ALIAS_TAKEN = { parameter: "alias", message: "This alias is not available in this scope.", column: "alias" };
const aliases = (ctx: RequestContext, scope: { scope: string; scopeId: number }, exceptId?: number) => takenNames(ctx, BLOG_ENTRIES, "alias", scope, exceptId);

export async function createBlogEntry(ctx: RequestContext, input: CreateBlogEntry, query: Query = {}) {
  const user = requireUser(ctx);
  const data = parseInput(BLOG_FIELDS.create, input);
  const createdById = await resolveCreator(ctx, data.createdBy, user.id);
  const publishUp = data.publishUp ?? new Date();
  assertPublishingWindow(publishUp, data.publishDown);

  const scope = { scope: data.scope, scopeId: data.scopeId };
  const entry = await createWithUniqueName({
    requested: data.alias,
    derivedFrom: aliasFromTitle(data.title),
    separator: "-",
    parameter: "alias",
    label: "alias",
    taken: aliases(ctx, scope),
    insert: (alias) =>
      createRecord<BlogEntry>(ctx, BLOG_WRITES, {
        event: BLOG_EVENTS.entryCreated,
        scope,
        answer: { query: query as Selection },
        inserted: Prisma.sql`created AS (${insertStatement(
          ctx,
          BLOG_ENTRIES,
          { ...columnValues(BLOG_FIELDS, data, "create"), alias, publishUp, createdById },
          { skipConflictOn: ["scope", "scopeId", "alias"] },
        )})`,
      }),
  });
  return createdRecord<BlogEntry>(ctx, BLOG_ENTRIES, entry, query as Selection);
}

/**
 * Changes the given fields only; a new scope must be writable and must not hold the alias already.
 * Answers the entry as the caller may read it: null when the caller may change it but not read it.
 */
export async function updateBlogEntry(ctx: RequestContext, id: number, input: UpdateBlogEntry, query: Query = {}) {
  requireUser(ctx);
  const data = parseInput(BLOG_FIELDS.update, input);
  await changeRecord<BlogEntry>(ctx, BLOG_WRITES, id, {
    event: BLOG_EVENTS.entryUpdated,
    async change(tx, entry) {
      if (changesNothing(data)) return { row: entry, changed: [] };
      const scope = { scope: data.scope ?? entry.scope, scopeId: data.scopeId ?? entry.scopeId };
      const moved = scope.scope !== entry.scope || scope.scopeId !== entry.scopeId;
      if (moved) await assertCanWriteInScope(tx, scope.scope, scope.scopeId);
      const createdBy = await resolveCreator(tx, data.createdBy, entry.createdById);
      // publishDown: absent keeps the stored end, null removes it (the window stays open).
      const publishDown = data.publishDown === undefined ? entry.publishDown : data.publishDown;
      assertPublishingWindow(data.publishUp ?? entry.publishUp, publishDown);
      const alias = data.alias ?? entry.alias;
      if (alias !== entry.alias || moved) await assertNameFree(alias, aliases(tx, scope, id), "alias", "alias");
      return { update: updateStatement(tx, BLOG_ENTRIES, id, { ...columnValues(BLOG_FIELDS, { ...data, createdBy }, "update"), alias, ...scope, publishDown }) };
    },
  }).catch(writeFailure({ conflict: ALIAS_TAKEN, missing: `Blog entry ${id} not found.` }));
  return changedRecord<BlogEntry>(ctx, BLOG_ENTRIES, id, query as Selection);
}

/** Deletes an entry: the creator, a group manager or an administrator. */
export async function deleteBlogEntry(ctx: RequestContext, id: number): Promise<number> {
  return deleteRecord(ctx, BLOG_WRITES, id, BLOG_EVENTS.entryDeleted);
}
