import { Prisma } from "../generated/prisma/client.js";
import { conflict } from "./errors.js";
import { sqlOf, type RequestContext } from "./context.js";
import { column, modelInfo, table, type RecordsDeclaration } from "./records.js";
import { escapeLike } from "./search.js";

/** Wiki page names: the title's words run together, keeping letters, digits and _ - . : (HUBzero's style). */
export function pagenameFromTitle(title: string): string {
  const name = title
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .split(/\s+/)
    .map((word) => word.replace(/[^A-Za-z0-9_.:-]/g, ""))
    .filter(Boolean)
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join("");
  return name || "Page";
}

/** Blog aliases: lower-case words joined by hyphens. */
export function aliasFromTitle(title: string): string {
  const alias = title
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return alias || "entry";
}

/** The first of base, base_2, base_3 … (joined by `separator`) that `taken` does not contain. */
export function firstFree(base: string, taken: Set<string>, separator: string): string {
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base}${separator}${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}

export type TakenNames = (prefix: string) => Promise<Set<string>>;

/** 409 naming `parameter` when `name` is taken in the scope (`taken` leaves out the record itself on update). */
export async function assertNameFree(name: string, taken: TakenNames, parameter: string, label: string): Promise<void> {
  if ((await taken(name)).has(name)) throw conflict(parameter, `The ${label} "${name}" is not available in this scope.`);
}

/**
 * The name a new scoped record gets: the one the client asked for (409 when taken), or the first free
 * variant of `derivedFrom`. `taken(prefix)` lists the scope's names that start with `prefix`.
 */
export async function pickUniqueName(options: {
  requested: string | null | undefined;
  derivedFrom: string;
  separator: string;
  parameter: string;
  label: string;
  taken: TakenNames;
}): Promise<string> {
  const { requested, derivedFrom, separator, parameter, label, taken } = options;
  if (!requested) return firstFree(derivedFrom, await taken(derivedFrom), separator);
  await assertNameFree(requested, taken, parameter, label);
  return requested;
}

/**
 * `taken` for pickUniqueName/assertNameFree over a scoped table, in plain SQL through `sqlOf(ctx)` (the
 * write transaction's client inside the write path): the names of `field` in the scope that start with
 * the prefix, the record `exceptId` left out.
 */
export function takenNames(ctx: RequestContext, records: RecordsDeclaration, field: string, scope: { scope: string; scopeId: number }, exceptId?: number): TakenNames {
  const info = modelInfo(ctx.db, records.model);
  const name = column(info, "t", field);
  return async (prefix) => {
    const rows = await sqlOf(ctx).query<{ name: string }>(Prisma.sql`
      SELECT ${name} AS name FROM ${table(info, "t")}
       WHERE ${column(info, "t", "scope")} = ${scope.scope} AND ${column(info, "t", "scopeId")} = ${scope.scopeId}
         AND ${name} LIKE ${`${escapeLike(prefix)}%`}${exceptId ? Prisma.sql` AND ${column(info, "t", "id")} <> ${exceptId}` : Prisma.empty}`);
    return new Set(rows.map((row) => row.name));
  };
}
