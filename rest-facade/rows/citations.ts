import { CitationListDocument } from "../generated/citations.js";
import { listParams } from "../list-params.js";
import type { RestOperation } from "../types.js";
import { CITATION_LIST } from "../../src/citations/service.js";

/** Citations (API document: 1.0 and 1.1 with the same parameters; docs/decisions.md, Citations). */
const operations: RestOperation[] = [
  {
    area: "citations",
    method: "GET",
    path: "/citations/list",
    versions: ["1.0", "1.1"],
    task: "list citations",
    params: listParams(CITATION_LIST),
    document: CitationListDocument,
    resultField: "citations",
    response: { kind: "list", key: "citations", extra: { success: true } },
    status: 200,
    access: "anyone",
  },
];

export default operations;
