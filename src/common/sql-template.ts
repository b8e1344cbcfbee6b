import { Prisma } from "../generated/prisma/client.js";
import { flattenedSql } from "../db/sql.js";

/**
 * SQL built once per shape and then reused, with the values that differ from one statement of that shape to the
 * next filled in. Folding a declaration's rule and rendering it (src/common/policy.ts) cost a read or a write
 * tens of microseconds per statement, and the result is the same text for every viewer of one class; filling
 * a template costs a copy of its values.
 *
 * While a template is built, a `Slot` stands for each value that differs (the viewer's id, the moment): the
 * builder passes it on as it would pass the value, so it must only interpolate it (`${userId}`), never decide
 * anything by it. The key a shape is cached under names everything that is decided while building.
 */
export class Slot {
  constructor(readonly name: string) {}
}

interface Template {
  sql: Prisma.Sql;
  /** Where in `sql.values` the slots are. */
  slots: readonly number[];
}

export class TemplateCache<Owner extends object> {
  private readonly byOwner = new WeakMap<Owner, Map<string, Template | null>>();

  /**
   * The SQL `build` answers for `owner` and `key`, built the first time and filled by `valueOf` each time
   * after (null: `build` answered none).
   */
  filled(owner: Owner, key: string, build: () => Prisma.Sql | null, valueOf: (slot: Slot) => unknown): Prisma.Sql | null {
    let templates = this.byOwner.get(owner);
    if (!templates) this.byOwner.set(owner, (templates = new Map()));
    let template = templates.get(key);
    if (template === undefined) {
      const sql = build();
      // A slot inside another value (an array parameter) would reach the database unfilled.
      if (sql?.values.some((value) => !(value instanceof Slot) && containsSlot(value))) throw new Error(`${key}: a slot is inside a value (an array?): interpolate each slot on its own`);
      template = sql && { sql: flattenedSql(sql), slots: sql.values.flatMap((value, index) => (value instanceof Slot ? [index] : [])) };
      templates.set(key, template);
    }
    if (!template) return null;
    if (!template.slots.length) return template.sql;
    const values = template.sql.values.slice();
    for (const index of template.slots) values[index] = valueOf(values[index] as Slot);
    // A value that is SQL itself (a viewer's id as a column) is spliced in by the constructor.
    return new Prisma.Sql(template.sql.strings, values);
  }
}

function containsSlot(value: unknown): boolean {
  if (value instanceof Slot) return true;
  if (Array.isArray(value)) return value.some(containsSlot);
  if (typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype) return Object.values(value).some(containsSlot);
  return false;
}
