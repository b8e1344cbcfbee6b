import { badInput } from "./errors.js";

/** Largest page any list returns; `limit=0` asks for exactly this. */
export const MAX_PAGE_SIZE = 100;

export interface PageArgs {
  limit?: number | null;
  start?: number | null;
}

/** Turns the contract's limit/start into Prisma take/skip: 0 means the maximum, above the maximum is clamped. */
export function pageWindow({ limit, start }: PageArgs, defaultLimit = 25): { take: number; skip: number } {
  const requested = limit ?? defaultLimit;
  const offset = start ?? 0;
  if (!Number.isInteger(requested) || requested < 0) throw badInput("limit", "must be a whole number of 0 or more");
  if (!Number.isInteger(offset) || offset < 0) throw badInput("start", "must be a whole number of 0 or more");
  return { take: requested === 0 ? MAX_PAGE_SIZE : Math.min(requested, MAX_PAGE_SIZE), skip: offset };
}

export type SortDirection = "asc" | "desc";

/**
 * Checks a sort value against the area's whitelist (REST column name → Prisma field) and normalises the
 * direction. The same names work on both surfaces, e.g. `sort: "publish_up"`.
 */
export function sortOrder<Field extends string>(
  columns: Readonly<Record<string, Field>>,
  sort: string | null | undefined,
  direction: string | null | undefined,
  fallback: { sort: string; direction: SortDirection },
): { field: Field; direction: SortDirection } {
  const name = sort || fallback.sort;
  const field = Object.hasOwn(columns, name) ? columns[name] : undefined;
  if (!field) throw badInput("sort", `must be one of ${Object.keys(columns).join(", ")}`);
  const dir = (direction || fallback.direction).toLowerCase();
  if (dir !== "asc" && dir !== "desc") throw badInput("sortDir", "must be asc or desc");
  return { field, direction: dir };
}
