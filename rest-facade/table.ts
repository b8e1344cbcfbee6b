import type { RestOperation } from "./types.js";
import { memberOperations } from "./rows/members.js";
import { wikiOperations } from "./rows/wiki.js";
import { blogOperations } from "./rows/blog.js";

/** The facade table: one row per documented operation. A new area adds its rows file here. */
export const restOperations: RestOperation[] = [...memberOperations, ...wikiOperations, ...blogOperations];
