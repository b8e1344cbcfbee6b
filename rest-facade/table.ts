import type { RestOperation } from "./types.js";
import { areas } from "../src/areas.js";

/** The facade table: one row per documented operation, every area's rows (src/areas.ts). */
export const restOperations: RestOperation[] = areas.flatMap((area) => area.operations);
