import { prismaDatamodel } from "./datamodel.js";
import type { RequestContext } from "./context.js";

/**
 * What deleting a group does to the content of every area in its scope (docs/decisions.md, "Deleting a
 * group"): each area that keeps records with `scope = 'group'` registers how it removes a group's records,
 * on the write path, with each record's own deleted event. The group's delete runs every registered
 * removal in its transaction, so the group and all its content go together or not at all.
 * `test/group-deletion.test.ts` fails when a model with scope columns has no registered removal, so an
 * area added later cannot leave orphans.
 */
export interface GroupContent {
  /** The area, as in its events ("wiki", "blog", "announcements"). */
  area: string;
  /** The Prisma models whose group-scoped rows this removal deletes. */
  models: string[];
  /** Deletes the group's records of this area inside `tx` (a context whose `tx` is the open write transaction); answers how many. */
  remove(tx: RequestContext, groupId: number): Promise<number>;
}

const registered = new Map<string, GroupContent>();

export function registerGroupContent(content: GroupContent): GroupContent {
  if (registered.has(content.area)) throw new Error(`group content of ${content.area} is registered twice`);
  registered.set(content.area, content);
  return content;
}

/**
 * Every registered removal, in registration order, except that one whose records refer to another's (a
 * forum post to its category, a category to its section: a foreign key of the Prisma model) runs before
 * it: the referred-to rows' deletion would otherwise cascade to the referring ones without their events.
 */
export function groupContents(): readonly GroupContent[] {
  const contents = [...registered.values()];
  const models = prismaDatamodel().datamodel.models;
  const refersTo = (content: GroupContent, other: GroupContent) =>
    content !== other &&
    content.models.some((model) =>
      models[model]?.fields.some((field) => field.kind === "object" && field.relationFromFields?.length && other.models.includes(field.type)),
    );
  const ordered: GroupContent[] = [];
  // Each round takes, in registration order, the first content nothing left refers to (a few areas: no need for more).
  while (contents.length) {
    const next = contents.findIndex((content) => !contents.some((other) => refersTo(other, content)));
    if (next < 0) throw new Error(`group contents refer to each other in a cycle: ${contents.map((content) => content.area).join(", ")}`);
    ordered.push(...contents.splice(next, 1));
  }
  return ordered;
}
