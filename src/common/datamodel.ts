import { getDatamodel } from "../generated/prisma/pothos-types.js";

let parsed: ReturnType<typeof getDatamodel> | undefined;

/**
 * The Prisma data model (its models' fields and relations), parsed once: the generated `getDatamodel()`
 * parses its JSON on every call, and the schema's build asks it once per field (60 ms at start-up).
 */
export const prismaDatamodel = (): ReturnType<typeof getDatamodel> => (parsed ??= getDatamodel());
