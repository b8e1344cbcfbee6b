import { builder } from "../graphql/builder.js";
import "./activity.js";
import { tableInput } from "../graphql/fields.js";
import { recordFields } from "../graphql/crud.js";
import { CITATION_FIELDS, CITATION_LIST, CITATION_TYPES, createCitation, deleteCitation, getCitation, listCitations, updateCitation } from "./service.js";

const splitAuthors = (authors: string) => authors.split(";").map((name) => name.trim()).filter(Boolean);

export const CitationType = builder.prismaObject("Citation", {
  description: "A bibliographic record: what a work cites or what a community produced.",
  fields: (t) => ({
    id: t.exposeID("id"),
    type: t.exposeString("type", { description: `The kind of work: ${CITATION_TYPES.join(", ")}.` }),
    title: t.exposeString("title"),
    authors: t.stringList({ description: "Author names in order, as written.", resolve: (citation) => splitAuthors(citation.authors) }),
    authorsText: t.exposeString("authors", { description: 'The authors as one string, separated by "; " (the REST encoding).' }),
    year: t.exposeInt("year", { nullable: true }),
    journal: t.exposeString("journal", { description: "Journal name (articles); empty when none." }),
    booktitle: t.exposeString("booktitle", { description: "Book or proceedings title (chapters, conference papers); empty when none." }),
    volume: t.exposeString("volume"),
    issue: t.exposeString("issue"),
    pages: t.exposeString("pages"),
    publisher: t.exposeString("publisher"),
    doi: t.exposeString("doi", { description: "Digital Object Identifier, e.g. 10.1000/xyz123; empty when none." }),
    url: t.exposeString("url", { description: "Where the work can be read; empty when none." }),
    abstract: t.exposeString("abstract"),
    published: t.exposeInt("published", { description: "1 listed to everyone, 0 to administrators only." }),
    uri: t.string({ description: "The citation's path on the site.", resolve: (citation) => `/citations/${citation.id}` }),
    created: t.expose("created", { type: "DateTime" }),
    modified: t.expose("modified", { type: "DateTime" }),
    createdById: t.exposeInt("createdById"),
    createdBy: t.relation("createdBy"),
  }),
});

recordFields("Citation", {
  type: CitationType,
  plural: "citations",
  read: { description: "One citation the caller may see.", resolve: getCitation },
  list: { description: "Citations the caller may see, searched, sorted and paged like GET /api/citations/list.", spec: CITATION_LIST, resolve: listCitations },
  create: { scope: "admin", input: tableInput("CreateCitationInput", CITATION_FIELDS, "create"), resolve: createCitation },
  update: {
    scope: "admin",
    input: tableInput("UpdateCitationInput", CITATION_FIELDS, "update", "Only the given fields change; null clears year and authors."),
    resolve: updateCitation,
  },
  remove: { scope: "admin", description: "Deletes the citation; returns its id.", resolve: deleteCitation },
});
