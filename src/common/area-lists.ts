import { z } from "zod";
import type { Prisma } from "../generated/prisma/client.js";
import type { RequestContext } from "./context.js";
import { ApiError } from "./errors.js";
import { listedScope, type ListArgs } from "./list-spec.js";
import { findVisible } from "./record-reads.js";
import type { Selection } from "./row-reading.js";
import { parseInput } from "./validation.js";
import type { ListFilter } from "./area-declaration.js";

/** A record's noun as the messages name it ("Forum section": "section"). */
export const nounOf = (label: string) => label.split(" ").pop()!.toLowerCase();

/**
 * An area's list filters (AreaDeclaration.list.filters) as its list applies them: the filters as given or
 * defaulted (`filtersOf`), and the records they name checked (`assertNamedRecords`, where `namesRecords`).
 */
export function listFilters(declared: Record<string, ListFilter> | undefined) {
  const filters = Object.entries(declared ?? {});
  // Each filter's rule as the object schema parseInput takes, made once: a zod object schema compiles its
  // parser on first use, so one made per request cost a list ≈5 % of its CPU (forum-threads, issue 27 bench).
  const filterSchemas = new Map(filters.map(([name, filter]) => [name, z.object({ [name]: filter.rule })]));
  /**
   * The list's filters as given or defaulted, each checked by its rule (400 naming it), in one pass: the
   * equality filters by the field each filters (`values`), the others as their conditions.
   */
  const filtersOf = (ctx: RequestContext, args: Record<string, unknown>): { values?: Record<string, string | number>; conditions: Prisma.Sql[] } => {
    if (!filters.length) return { conditions: [] };
    const values: Record<string, string | number> = {};
    const conditions: Prisma.Sql[] = [];
    for (const [name, filter] of filters) {
      const given = args[name] ?? filter.default;
      if (given == null || given === "") continue;
      const value = (parseInput(filterSchemas.get(name)!, { [name]: given }) as Record<string, string | number | boolean>)[name]!;
      if (filter.condition) conditions.push(filter.condition(value as never, ctx));
      else if (typeof value === "boolean") {
        if (value) values[filter.column ?? name] = filter.equals!;
      } else if (value !== filter.all) values[filter.column ?? name] = value;
    }
    return { values, conditions };
  };
  /** A filter naming another area's record: that record must be one the caller sees, of the listed scope (404 naming the filter). */
  const assertNamedRecords = async (ctx: RequestContext, args: ListArgs & Record<string, unknown>, values: Record<string, string | number> | undefined) => {
    for (const [name, filter] of filters) {
      const id = values?.[filter.column ?? name];
      if (!filter.names || id === undefined) continue;
      const named = filter.names();
      const noun = nounOf(named.label);
      const every = filter.all === undefined ? "" : ` (${filter.all}: every ${noun})`;
      const found = await findVisible<{ scope: string; scopeId: number }>(ctx, named.records, Number(id), { select: { scope: true, scopeId: true } } as Selection);
      if (!found) throw new ApiError(404, `${named.label} ${id} does not exist.`, [{ parameter: name, message: `names no ${named.label.toLowerCase()} you may see${every}` }]);
      const { scope, scopeId } = listedScope(args);
      if (found.scope !== scope || found.scopeId !== scopeId) {
        throw new ApiError(404, `${named.label} ${id} is not one of ${scope} ${scopeId}.`, [
          { parameter: name, message: `names a ${noun} of ${found.scope} ${found.scopeId}, not of the scope listed (${scope} ${scopeId}): give that scope${filter.all === undefined ? "" : `, or ${name}=${filter.all}`}` },
        ]);
      }
    }
  };
  const namesRecords = filters.some(([, filter]) => filter.names);
  return { filtersOf, assertNamedRecords, namesRecords };
}
