import { CourseAssetHandlersDocument } from "../generated/courses.js";
import type { RestOperation } from "../types.js";

/** The courses rows beyond the catalogue (whose row comes from src/courses/area.ts). All 1.0. */
const operations: RestOperation[] = [
  {
    area: "courses",
    method: "POST",
    path: "/courses/asset/handlers",
    versions: ["1.0"],
    task: "get the asset handlers for an extension",
    params: [{ name: "name", type: "string", required: true, description: "Name of the file to be uploaded.", variable: "name" }],
    document: CourseAssetHandlersDocument,
    resultField: "courseAssetHandlers",
    response: { kind: "record" },
    status: 200,
    access: "anyone",
  },
];

export default operations;
