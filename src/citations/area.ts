import { z } from "zod";
import { defineArea } from "../common/area.js";
import { zeroOrOne } from "../common/validation.js";

/** The kinds of work a citation may cite (BibTeX's entry types, in the words front ends show). */
export const CITATION_TYPES = ["article", "book", "chapter", "inproceedings", "thesis", "report", "software", "dataset", "misc"] as const;

const text = (max: number) => z.string().trim().max(max);
const splitAuthors = (authors: string) => authors.split(";").map((name) => name.trim()).filter(Boolean);

/** Writes are for administrators (the contract: records the REST document can only read). */
const REFUSED = "Only administrators can change citations.";

/** Citations: reference data without scopes, listed on REST and written by administrators through GraphQL (src/common/area.ts). */
export const CITATIONS = defineArea({
  area: "citations",
  model: "Citation",
  plural: "citations",
  label: "Citation",
  description: "A bibliographic record: what a work cites or what a community produced.",
  // Everyone sees published ones; administrators see all.
  policy: { scoped: false, published: { field: "published", value: 1 } },
  fields: {
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
      rule: zeroOrOne("must be 0 (administrators only) or 1 (listed)"),
      description: "1 listed to everyone (default), 0 administrators only.",
    },
  },
  shown: {
    id: true,
    type: `The kind of work: ${CITATION_TYPES.join(", ")}.`,
    title: true,
    authorsText: { from: "authors", rest: "author", description: 'The authors as one string, separated by "; " (the REST encoding).' },
    authors: { type: "[String]", rest: false, description: "Author names in order, as written.", resolve: (citation: { authors: string }) => splitAuthors(citation.authors) },
    year: true,
    journal: "Journal name (articles); empty when none.",
    booktitle: "Book or proceedings title (chapters, conference papers); empty when none.",
    volume: true,
    issue: true,
    pages: true,
    publisher: true,
    doi: "Digital Object Identifier, e.g. 10.1000/xyz123; empty when none.",
    url: "Where the work can be read; empty when none.",
    abstract: true,
    published: "1 listed to everyone, 0 to administrators only.",
    uri: { type: "String", description: "The citation's path on the site.", resolve: (citation: { id: number }) => `/citations/${citation.id}` },
    created: true,
    createdById: { rest: "created_by" },
    modified: true,
    createdBy: { relation: true },
  },
  list: {
    description: "Citations the caller may see, searched, sorted and paged like GET /api/citations/list.",
    sortColumns: { id: "id", title: "title", year: "year", type: "type", journal: "journal", created: "created", modified: "modified" },
    defaults: { sort: "created", sortDir: "desc", limit: 25 },
    search: { in: "title, authors, journal or book title", fields: ["title", "authors", "journal", "booktitle"] },
  },
  read: { description: "One citation the caller may see." },
  writes: {
    by: "administrators",
    forbidden: REFUSED,
    names: ["title", "year", "doi"],
    update: "Only the given fields change; null clears year and authors.",
    remove: "Deletes the citation; returns its id.",
  },
  events: {
    citationCreated: "A citation was created.",
    citationUpdated: "A citation's fields changed; `changed` names them.",
    citationDeleted: "A citation was deleted.",
  },
  // To the site when public, and its author, as long as they may read it.
  activity: {
    describe: (event) => `Citation added: ${String(event.payload.title ?? event.recordId)}`,
    follows: ["citations.citationUpdated", "citations.citationDeleted"],
  },
  // API document: 1.0 and 1.1 with the same parameters (docs/decisions.md, Citations).
  rest: {
    versions: ["1.0", "1.1"],
    list: { path: "/citations/list", task: "list citations", key: "citations", extra: { success: true } },
  },
});
