import type { ObjectRef } from "@pothos/core";
import { DEFAULT_PAGE_SIZE, DEFAULT_SCOPE, describeList, describePage, type ListSpec, type Page } from "../common/list-spec.js";
import { builder, type Types } from "./builder.js";

/**
 * `{ items, total }` list types: `total` counts every record matching the filters, not just this page.
 * Both come from a lazy `Page`, so the count runs only when `total` is selected.
 */
const listTypes = new Map<string, ObjectRef<Types, Page<object>>>();

/** One list type per name: a record's list field and its group plugin twin (src/groups/plugins.ts) share it. */
export function listType<Item extends object>(name: string, item: ObjectRef<Types, Item>): ObjectRef<Types, Page<Item>> {
  const known = listTypes.get(name);
  if (known) return known as unknown as ObjectRef<Types, Page<Item>>;
  const made = newListType(name, item);
  listTypes.set(name, made as unknown as ObjectRef<Types, Page<object>>);
  return made;
}

function newListType<Item extends object>(name: string, item: ObjectRef<Types, Item>) {
  return builder.objectRef<Page<Item>>(name).implement({
    description: `A page of ${item.name} records and the number of all records that match.`,
    fields: (t) => ({
      items: t.field({ type: [item], resolve: (page) => page.items() }),
      total: t.int({ description: "The number of all records that match the filters (computed only when selected).", resolve: (page) => page.total() }),
    }),
  });
}

/** `limit` and `start` alone, with the kit's default page and descriptions: lists that have no REST row (a caller's own tokens, notifications, webhook endpoints). */
export const pageArgs = builder.args((t) => ({
  limit: t.int({ defaultValue: DEFAULT_PAGE_SIZE, description: describePage().limit }),
  start: t.int({ defaultValue: 0, description: describePage().start }),
}));

/** A list's arguments with the same defaults and descriptions as its REST row, from the area's list spec. */
export const listArgs = (spec: ListSpec) => {
  const describe = describeList(spec);
  return builder.args((t) => ({
    ...(spec.search ? { search: t.string({ description: describe.search }) } : {}),
    ...(spec.scoped
      ? {
          scope: t.string({ defaultValue: DEFAULT_SCOPE.scope, description: describe.scope }),
          scopeId: t.int({ defaultValue: DEFAULT_SCOPE.scopeId, description: describe.scopeId }),
        }
      : {}),
    sort: t.string({ defaultValue: spec.defaults.sort, description: describe.sort }),
    sortDir: t.string({ defaultValue: spec.defaults.sortDir, description: describe.sortDir }),
    limit: t.int({ defaultValue: spec.defaults.limit ?? DEFAULT_PAGE_SIZE, description: describe.limit }),
    start: t.int({ defaultValue: 0, description: describe.start }),
  }));
};
