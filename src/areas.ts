/**
 * The area registry: the one shared file a new area edits (besides its prisma/schema/<area>.prisma).
 * Each area's `area.ts` registers its GraphQL types with the builder when imported and hands over its
 * facade rows; the schema (src/graphql/schema.ts) and the facade table (rest-facade/table.ts) are built
 * from this list. Its tests' declarations (`src/<area>/testing.ts`) are found by name.
 */
import type { RestOperation } from "../rest-facade/types.js";
import { membersArea } from "./users/area.js";
import { wikiArea } from "./wiki/area.js";
import { blogArea } from "./blog/area.js";

export interface Area {
  /** The facade area (first path segment of its rows). */
  name: string;
  /** Its rows of the facade table, one per documented operation (rest-facade/rows/<area>.ts). */
  operations: RestOperation[];
}

export const areas: Area[] = [membersArea, wikiArea, blogArea];
