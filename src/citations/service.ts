import { z } from "zod";
import { Prisma, type Citation } from "../generated/prisma/client.js";
import type { RequestContext } from "../common/context.js";
import { notFound } from "../common/errors.js";
import { listSpec, pagedList, type ListArgs } from "../common/paging.js";
import { createdRecord, findVisible, records, type Selection } from "../common/records.js";
import { domainEvents } from "../common/events.js";
import { changeRecord, createRecord, deleteRecord, fieldsChange, insertStatement, writtenRecords } from "../common/write-path.js";
import { requireAdministrator } from "../common/scopes.js";
import { parseInput, type RawInput } from "../common/validation.js";
import { columnValues, fieldTable } from "../common/fields.js";

/** The kinds of work a citation may cite (BibTeX's entry types, in the words front ends show). */
export const CITATION_TYPES = ["article", "book", "chapter", "inproceedings", "thesis", "report", "software", "dataset", "misc"] as const;

/** Citations are reference data without scopes: everyone sees published ones; administrators see all. */
export const CITATIONS = records({ model: "Citation", scoped: false, published: { field: "published", value: 1 } });

/** GET /citations/list and `citations`: sort whitelist, defaults and search (citations have no scope). */
export const CITATION_LIST = listSpec({
  records: CITATIONS,
  sortColumns: { id: "id", title: "title", year: "year", type: "type", journal: "journal", created: "created", modified: "modified" },
  defaults: { sort: "created", sortDir: "desc", limit: 25 },
  search: { in: "title, authors, journal or book title", fields: ["title", "authors", "journal", "booktitle"] },
});

type Query = { include?: Prisma.CitationInclude; select?: Prisma.CitationSelect };

const text = (max: number) => z.string().trim().max(max);

/** The citations' field table (src/common/fields.ts): the GraphQL inputs, their rules and columns (no REST writes). */
export const CITATION_FIELDS = fieldTable({
  type: { type: "String", rule: z.enum(CITATION_TYPES, `must be one of ${CITATION_TYPES.join(", ")}`), description: `${CITATION_TYPES.join(", ")}; default article.` },
  title: { type: "String", rule: z.string().trim().min(1, "must not be empty").max(1000), required: true },
  authors: {
    type: "[String]",
    rule: z
      .array(z.string().trim().min(1, "must not be empty").max(255), "must be a list of names")
      .max(500)
      .refine((names) => names.every((name) => !name.includes(";")), "names must not contain ';'"),
    description: "Author names in order (no ';' inside a name).",
    // Stored as written in the original: "A; B".
    store: (names: string[]) => names.join("; "),
    clearedTo: "",
  },
  year: {
    type: "Int",
    rule: z.number().int().min(1000, "must be a year from 1000 to 2999").max(2999, "must be a year from 1000 to 2999"),
    clearedTo: null,
  },
  journal: { type: "String", rule: text(500) },
  booktitle: { type: "String", rule: text(500), description: "Book or proceedings title." },
  volume: { type: "String", rule: text(50) },
  issue: { type: "String", rule: text(50) },
  pages: { type: "String", rule: text(50) },
  publisher: { type: "String", rule: text(500) },
  doi: {
    type: "String",
    rule: z
      .string()
      .trim()
      .regex(/^(10\.\d{4,9}\/\S+)?$/, "must be a DOI such as 10.1000/xyz123")
      .max(255),
    description: "e.g. 10.1000/xyz123",
  },
  url: {
    type: "String",
    rule: z
      .string()
      .trim()
      .max(2048)
      .regex(/^(https?:\/\/\S+)?$/, "must be an http or https address"),
    description: "An http or https address.",
  },
  abstract: { type: "String", rule: z.string().max(65_536) },
  published: {
    type: "Int",
    rule: z.union([z.literal(0), z.literal(1)], "must be 0 (administrators only) or 1 (listed)"),
    description: "1 listed to everyone (default), 0 administrators only.",
  },
});

export type CreateCitation = RawInput<typeof CITATION_FIELDS.create>;
export type UpdateCitation = RawInput<typeof CITATION_FIELDS.update>;

export function listCitations(ctx: RequestContext, args: ListArgs, query: Query = {}) {
  return pagedList<Citation>(CITATION_LIST, ctx, args, query as Selection);
}

export async function getCitation(ctx: RequestContext, id: number, query: Query = {}) {
  const citation = await findVisible<Citation>(ctx, CITATIONS, id, query as Selection);
  if (!citation) throw notFound(`Citation ${id} not found.`);
  return citation;
}

/** Writes are for administrators (the contract: records the REST document can only read). */
const REFUSED = "Only administrators can change citations.";

/** The citations' domain events (docs/events.md). */
export const CITATION_EVENTS = domainEvents("citations", {
  citationCreated: "A citation was created.",
  citationUpdated: "A citation's fields changed; `changed` names them.",
  citationDeleted: "A citation was deleted.",
});

/** Citations on the write path (src/common/write-path.ts): administrators only. */
export const CITATION_WRITES = writtenRecords({
  area: "citations",
  changedSubscription: "citationChanged",
  records: CITATIONS,
  names: ["title", "year", "doi"],
  notFound: (id) => `Citation ${id} not found.`,
  forbidden: REFUSED,
});

export async function createCitation(ctx: RequestContext, input: CreateCitation, query: Query = {}) {
  const user = requireAdministrator(ctx, REFUSED);
  const data = parseInput(CITATION_FIELDS.create, input);
  const citation = await createRecord<Citation>(ctx, CITATION_WRITES, {
    event: CITATION_EVENTS.citationCreated,
    answer: { query: query as Selection },
    inserted: Prisma.sql`created AS (${insertStatement(ctx, CITATIONS, { ...columnValues(CITATION_FIELDS, data, "create"), createdById: user.id })})`,
  });
  return createdRecord<Citation>(ctx, CITATIONS, citation!, query as Selection);
}

/** Changes the given fields only (`year: null` and `authors: null` clear them). */
export async function updateCitation(ctx: RequestContext, id: number, input: UpdateCitation, query: Query = {}) {
  requireAdministrator(ctx, REFUSED);
  const data = parseInput(CITATION_FIELDS.update, input);
  await changeRecord<Citation>(ctx, CITATION_WRITES, id, {
    event: CITATION_EVENTS.citationUpdated,
    change: fieldsChange(CITATIONS, CITATION_FIELDS, id, data),
  });
  return createdRecord<Citation>(ctx, CITATIONS, id, query as Selection);
}

export async function deleteCitation(ctx: RequestContext, id: number): Promise<number> {
  requireAdministrator(ctx, REFUSED);
  return deleteRecord(ctx, CITATION_WRITES, id, CITATION_EVENTS.citationDeleted);
}
