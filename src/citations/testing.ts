import type { AreaTesting, Documented } from "../../test/areas.js";
import { contractOf, createThroughGraphql } from "../../test/area-kit.js";
import { CITATIONS } from "./area.js";

/** Transcribed by hand from shared/spec/community-platform-api.md ("Citations": 1.0 and 1.1, same parameters). */
const list: Documented = {
  limit: ["integer", false, 25],
  start: ["integer", false, 0],
  search: ["string", false],
  sort: ["string", false, "created"],
  sort_Dir: ["string", false, "desc"],
};

let serial = 0;

export const testing: AreaTesting = {
  area: "citations",
  documented: { "GET /citations/list 1.0": { ...list }, "GET /citations/list 1.1": { ...list } },
  /** Citations are written by administrators through GraphQL (the API document only lists them). */
  async create(server, token, values = {}) {
    serial += 1;
    const input = { title: `Citation ${serial}`, authors: ["Curie, Marie"], year: 1903, published: 1, ...values };
    return createThroughGraphql(server, token, "createCitation", "CreateCitationInput", input);
  },
  // The rest (rows, list) is the declaration's (contractOf).
  contract: contractOf(CITATIONS, {
    table: "citations",
    writers: "administrators",
    notFound: (id) => `Citation ${id} not found.`,
    searchField: "title",
    searchAlso: "journal",
    states: [
      { name: "published", published: true, values: { published: 1 } },
      { name: "unpublished", published: false, values: { published: 0 } },
    ],
  }),
};
