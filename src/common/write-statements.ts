import { Prisma } from "../generated/prisma/client.js";
import { utcTimestamp } from "../db/sql.js";
import { badInput } from "./errors.js";
import type { RecordsDeclaration } from "./records.js";
import { column, modelInfo, table, type ModelInfo } from "./model.js";
import type { RequestContext } from "./context.js";

// ---------------------------------------------------------------------------------------------------
// Statements from field values, by the Prisma model's columns (no Prisma query compiler on the write path).

/** A field's value as an SQL parameter of its column's type. */
function valueSql(info: ModelInfo, field: string, value: unknown): Prisma.Sql {
  const found = info.fields.get(field);
  if (!found || found.kind === "object") throw new Error(`${info.name} has no scalar field ${field}`);
  if (value === null) return Prisma.sql`NULL`;
  if (value instanceof Prisma.Sql) return value; // an expression over the row (alias t)
  if (found.type === "DateTime") return utcTimestamp(value as Date);
  if (found.type === "Json") return Prisma.sql`${JSON.stringify(value)}::jsonb`;
  if (found.isList) return Prisma.sql`${value as unknown[]}::${Prisma.raw(found.type === "String" ? "text[]" : "int[]")}`;
  return Prisma.sql`${value}`;
}

/**
 * The next id of a model's table, taken before its row is inserted (rows of one statement that refer to
 * each other: a page and its first revision). Its sequence is named as PostgreSQL names a serial column's
 * (`<table>_id_seq`; test/write-path.test.ts holds every table to it), so the statement does not look it
 * up on every run as `pg_get_serial_sequence` would (≈35 µs of the database's time per call).
 */
export function nextIdSql(ctx: RequestContext, model: Prisma.ModelName): Prisma.Sql {
  return Prisma.sql`nextval(${`${modelInfo(ctx.db, model).table}_id_seq`}::regclass)::int`;
}

/** The writing transaction's time, as the UTC `timestamp(3)` Prisma's columns hold. */
export const NOW = Prisma.sql`(now() AT TIME ZONE 'UTC')::timestamp(3)`;

/** `INSERT … RETURNING ${returningScalars(…)}`: every scalar of a record under its field name, as `createRecord` reads `created`. */
export const returningScalars = (ctx: Pick<RequestContext, "db">, records: RecordsDeclaration) => returning(modelInfo(ctx.db, records.model), records);

/** The scalars a write answers and its event compares: all but the columns kept for search only. */
export const writtenScalars = (info: ModelInfo, records: RecordsDeclaration) => info.scalars.filter((field) => !records.searchOnly?.includes(field.name));

/** The select list answering every scalar under its field name (as reads answer rows). */
export function returning(info: ModelInfo, records: RecordsDeclaration): Prisma.Sql {
  return Prisma.raw(
    writtenScalars(info, records)
      .map((field) => `"${field.column}" AS "${field.name}"`)
      .join(", "),
  );
}

/**
 * `INSERT … RETURNING` every scalar: `values` by field name (undefined: the column's default); the
 * updated-at stamp and an absent `created` are the transaction's time.
 */
export function insertStatement(ctx: RequestContext, records: RecordsDeclaration, values: Record<string, unknown>, options: { skipConflictOn?: string[] } = {}): Prisma.Sql {
  assertStaysConfined(ctx, records, values);
  const info = modelInfo(ctx.db, records.model);
  const given = Object.entries(values).filter(([, value]) => value !== undefined);
  for (const field of info.scalars) if ((field.isUpdatedAt || field.name === "created") && values[field.name] === undefined) given.push([field.name, NOW]);
  const columns = given.map(([field]) => Prisma.raw(`"${info.fields.get(field)!.column}"`));
  const params = given.map(([field, value]) => (value === NOW ? NOW : valueSql(info, field, value)));
  // A unique name taken already inserts nothing (and no event): the caller picks another.
  const onConflict = options.skipConflictOn
    ? Prisma.sql` ON CONFLICT (${Prisma.raw(options.skipConflictOn.map((field) => `"${info.fields.get(field)!.column}"`).join(", "))}) DO NOTHING`
    : Prisma.empty;
  // With the new row's version (xmin, as reads give it: the ETag of a create's answer).
  return Prisma.sql`INSERT INTO ${Prisma.raw(`"${info.table}"`)} (${Prisma.join(columns)}) VALUES (${Prisma.join(params)})${onConflict} RETURNING ${returning(info, records)}, xmin::text AS "__version"`;
}

/** `UPDATE … RETURNING` every scalar of the row `id`: the fields given (undefined: unchanged), and the updated-at stamp. */
export function updateStatement(ctx: RequestContext, records: RecordsDeclaration, id: number, values: Record<string, unknown>): Prisma.Sql {
  assertStaysConfined(ctx, records, values);
  const info = modelInfo(ctx.db, records.model);
  const sets = Object.entries(values)
    .filter(([, value]) => value !== undefined)
    .map(([field, value]) => Prisma.sql`${Prisma.raw(`"${info.fields.get(field)!.column}"`)} = ${valueSql(info, field, value)}`);
  for (const field of info.scalars) if (field.isUpdatedAt) sets.push(Prisma.sql`${Prisma.raw(`"${field.column}"`)} = ${NOW}`);
  return Prisma.sql`UPDATE ${table(info, "t")} SET ${Prisma.join(sets)} WHERE ${column(info, "t", "id")} = ${id} RETURNING ${returning(info, records)}`;
}

/**
 * A confined request (`RequestContext.confinedTo`: its path names the scope) writes only in that scope:
 * whatever an area's service works out, a record is never created in, or moved to, another one. The
 * group plugin inputs take no scope at all; this is the kit's guarantee behind them.
 */
function assertStaysConfined(ctx: RequestContext, records: RecordsDeclaration, values: Record<string, unknown>): void {
  const confined = ctx.confinedTo;
  if (!confined || !records.scoped) return;
  const { scope, scopeId } = values as { scope?: string; scopeId?: number };
  if ((scope !== undefined && scope !== confined.scope) || (scopeId !== undefined && scopeId !== confined.scopeId)) {
    throw badInput("scope", `cannot move a record out of the ${confined.scope} its path names`);
  }
}

/** `DELETE` of the row `id`. */
export function deleteStatement(ctx: RequestContext, records: RecordsDeclaration, id: number): Prisma.Sql {
  const info = modelInfo(ctx.db, records.model);
  return Prisma.sql`DELETE FROM ${table(info, "t")} WHERE ${column(info, "t", "id")} = ${id}`;
}
