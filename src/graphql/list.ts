import type { ObjectRef } from "@pothos/core";
import { builder, type Types } from "./builder.js";

/** `{ items, total }` list types: `total` counts every record matching the filters, not just this page. */
export function listType<Item extends object>(name: string, item: ObjectRef<Types, Item>) {
  return builder.objectRef<{ items: Item[]; total: number }>(name).implement({
    description: `A page of ${item.name} records and the number of all records that match.`,
    fields: (t) => ({
      items: t.field({ type: [item], resolve: (list) => list.items }),
      total: t.exposeInt("total"),
    }),
  });
}

/** The paging and sorting arguments every list shares, with the same defaults as REST. */
export const pagingArgs = (defaults: { sort: string; sortDir: "asc" | "desc"; limit?: number }) =>
  builder.args((t) => ({
    sort: t.string({ defaultValue: defaults.sort, description: "Column to sort by, named as in REST." }),
    sortDir: t.string({ defaultValue: defaults.sortDir, description: "asc or desc." }),
    limit: t.int({ defaultValue: defaults.limit ?? 25, description: "Page size; 0 means the maximum (100); larger values become 100." }),
    start: t.int({ defaultValue: 0, description: "Offset of the first record." }),
  }));
