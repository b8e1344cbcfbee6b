import { Prisma } from "../generated/prisma/client.js";
import { conflict } from "./errors.js";
import { sqlOf, type RequestContext } from "./context.js";
import { column, modelInfo, table } from "./model.js";
import { type RecordsDeclaration } from "./records.js";
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
 * `taken` for createWithUniqueName/assertNameFree over a scoped table, in plain SQL through `sqlOf(ctx)` (the
 * write transaction's client inside the write path): the names of `field` in the scope that start with
 * the prefix, the record `exceptId` left out.
 */
export function takenNames(ctx: RequestContext, records: RecordsDeclaration, field: string, scope: { scope: string; scopeId: number }, exceptId?: number): TakenNames {
  const info = modelInfo(ctx.db, records.model);
  const name = column(info, "t", field);
  const inScope = Prisma.sql`${column(info, "t", "scope")} = ${scope.scope} AND ${column(info, "t", "scopeId")} = ${scope.scopeId}${
    exceptId ? Prisma.sql` AND ${column(info, "t", "id")} <> ${exceptId}` : Prisma.empty
  }`;
  return async (prefix) => {
    // The name itself first, through the unique index: usually it is free, and then no other name matters
    // (firstFree and assertNameFree take it). A prefix LIKE can use no index under most collations, so it
    // reads every name of the scope: only when the name is taken.
    const exact = await sqlOf(ctx).query(Prisma.sql`SELECT 1 FROM ${table(info, "t")} WHERE ${inScope} AND ${name} = ${prefix}`);
    if (!exact.length) return new Set<string>();
    const rows = await sqlOf(ctx).query<{ name: string }>(
      Prisma.sql`SELECT ${name} AS name FROM ${table(info, "t")} WHERE ${inScope} AND ${name} LIKE ${`${escapeLike(prefix)}%`}`,
    );
    return new Set(rows.map((row) => row.name));
  };
}

/**
 * Creates a record under a unique name: the one the client asked for (409 naming `parameter` when taken),
 * or the first free variant of `derivedFrom`. `insert(name)` makes the record in one statement that
 * inserts nothing (null) when the name is taken (`insertStatement`'s `skipConflictOn`), so a name lost
 * to a concurrent create is simply the next round: the first free name now, after a short random pause
 * that spreads the losers of one round. The bound only stops a statement that never inserts.
 */
export async function createWithUniqueName<R>(options: {
  requested: string | null | undefined;
  derivedFrom: string;
  separator: string;
  parameter: string;
  label: string;
  taken: TakenNames;
  insert(name: string): Promise<R | null>;
}): Promise<R> {
  const { requested, derivedFrom, separator, parameter, label, taken, insert } = options;
  if (requested) {
    const made = await insert(requested);
    if (!made) throw conflict(parameter, `The ${label} "${requested}" is not available in this scope.`);
    return made;
  }
  let name = derivedFrom;
  for (let attempt = 1; attempt <= 1000; attempt++) {
    const made = await insert(name);
    if (made) return made;
    if (attempt > 1) await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(50, 2 * attempt)));
    name = firstFree(derivedFrom, await taken(derivedFrom), separator);
  }
  throw new Error(`no free ${label} derived from "${derivedFrom}" after 1000 attempts`);
}
