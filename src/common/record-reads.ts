import { Prisma } from "../generated/prisma/client.js";
import { DatabaseBusy, isConnectionLost } from "../db/sql.js";
import { refusedInsideTransaction } from "../db/transaction-guard.js";
import { ApiError } from "./errors.js";
import { sqlOf, type RequestContext } from "./context.js";
import type { RecordsDeclaration } from "./records.js";
import { column, modelInfo } from "./model.js";
import { type Selection, maskedVersion, privateFieldMasks, rowsStatement } from "./row-reading.js";
import { confinementSql, visibleSql } from "./visibility.js";

/**
 * A record the caller may see, read with the relations `query` selects, in one statement; null when hidden
 * or absent. `id`: the record's id, or a condition over the alias `t` naming one record by another unique
 * key (a group's cn).
 */
export async function findVisible<Row>(ctx: RequestContext, declaration: RecordsDeclaration, id: number | Prisma.Sql, query?: Selection): Promise<Row | null> {
  const info = modelInfo(ctx.db, declaration.model);
  const named = typeof id === "number" ? Prisma.sql`${column(info, "t", "id")} = ${id}` : id;
  const masks = privateFieldMasks(info, declaration, ctx.viewer, "t");
  const masked = masks ? Prisma.sql`, NOT COALESCE(${[...masks.values()][0]!}, FALSE) AS "__masked"` : Prisma.empty;
  const statement = rowsStatement<Row & { __version?: string; __masked?: boolean }>(ctx.db, declaration, query, {
    where: Prisma.sql`${named} AND ${visibleSql(ctx.db, declaration, ctx.viewer)} AND ${confinementSql(ctx, declaration)}`,
    viewer: ctx.viewer,
    extra: Prisma.sql`t.xmin::text AS "__version"${masked}`,
  });
  if (ctx.tx && statement.needsPrisma) throw refusedInsideTransaction(`${declaration.model}: a read inside a write transaction may select to-one relations only (the rest loads through Prisma)`);
  const [row] = await statement.finish(await sqlOf(ctx).query(statement.sql));
  if (!row) {
    ctx.conditions.answered(undefined);
    return null;
  }
  // The row's version (every update changes xmin): the ETag of REST record answers, checked by If-Match.
  // Another one when its private fields were masked for this reader, who may see them later at the same version.
  ctx.conditions.answered(row.__masked ? maskedVersion(row.__version!) : row.__version!);
  // The last column first: deleting an object's last-added property keeps its fast shape, deleting another
  // turns it into a dictionary (slower to read and to write out as JSON). A row that had relations added to
  // it after it was read (loaded through Prisma, `finish`) becomes one either way.
  delete row.__masked;
  delete row.__version;
  return row;
}

/**
 * What an update answers: the changed record if the caller may read it, else null. Managing is not
 * reading (a scope's manager may change a member's draft but not see it), and an update never hands back
 * what the caller could not read (issue 7); the change itself is done either way.
 */
export async function changedRecord<Row>(ctx: RequestContext, declaration: RecordsDeclaration, id: number, query?: Selection): Promise<Row | null> {
  return readAfterWrite(ctx, id, () => findVisible<Row>(ctx, declaration, id, query));
}

/**
 * The read that answers a committed write. The write is made, so a database that is busy or dropped the
 * connection for a moment must not turn it into a 503 ("nothing was kept"): the read is tried again, a few
 * times over about a second; should it still fail, the answer says the write was made.
 */
async function readAfterWrite<T>(ctx: RequestContext, id: number, read: () => Promise<T>): Promise<T> {
  // Inside a keyed operation's transaction (src/execution/conditions.ts) the write is not made until it
  // commits: a failed read undoes it with the rest, and its error says what the database said.
  if (ctx.tx) return read();
  for (let attempt = 1; ; attempt++) {
    try {
      return await read();
    } catch (error) {
      const busy = error instanceof DatabaseBusy || isConnectionLost(error);
      if (!busy) throw error;
      if (attempt === 5) throw new ApiError(500, `The write was made (record ${id}), but reading it back failed while the database was unavailable: read it again.`);
      await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** attempt));
    }
  }
}

/**
 * Creates answered in their own statement (`createRecord` with an `answer`), with the selection they were
 * read for: `createdRecord` hands one back as it is only for that same selection, and reads otherwise.
 */
export const answeredCreates = new WeakMap<object, Selection>();

/**
 * What a create answers: the new record as the caller reads it (its creator, or an administrator, always
 * may). `created`: what `createRecord` answered; when that is already the answer (read in the create's own
 * statement), no second statement reads it again.
 */
export async function createdRecord<Row>(ctx: RequestContext, declaration: RecordsDeclaration, created: number | { id: number }, query?: Selection): Promise<Row> {
  if (typeof created === "object" && query !== undefined && answeredCreates.get(created) === query) return created as Row;
  const id = typeof created === "number" ? created : created.id;
  const row = await readAfterWrite(ctx, id, () => findVisible<Row>(ctx, declaration, id, query));
  if (!row) throw new Error(`${declaration.model} ${id} was created but cannot be read back`);
  return row;
}
