/**
 * Prisma passes `contains`/`startsWith` (and case-insensitive `equals`) text into LIKE/ILIKE patterns
 * without escaping, so `%` and `_` would act as wildcards. These filters treat the caller's text literally.
 */
export const escapeLike = (text: string) => text.replace(/[\\%_]/g, (character) => `\\${character}`);

/** Case-insensitive "contains this text" filter for a string column. */
export const containsText = (text: string) => ({ contains: escapeLike(text), mode: "insensitive" as const });

/** "Starts with this text" filter for a string column. */
export const startsWithText = (text: string) => ({ startsWith: escapeLike(text) });

/** Case-insensitive equality; Prisma renders it as ILIKE, so it needs the same escaping. */
export const equalsIgnoringCase = (text: string) => ({ equals: escapeLike(text), mode: "insensitive" as const });
