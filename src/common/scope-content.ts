import { prismaDatamodel } from "./datamodel.js";
import type { RequestContext } from "./context.js";
import type { FixedScope } from "./scope-kinds.js";
import { sqlOf } from "./context.js";
import { forgetScopeCounts } from "./count-triggers.js";

/**
 * What deleting a scope's own record (a group, a course) does to the content of every area in that scope
 * (docs/decisions.md, "Deleting a group"): each area that keeps scoped records registers how it removes one
 * scope's records, on the write path, with each record's own deleted event. The scope's delete runs every
 * registered removal in its transaction, so the scope and all its content go together or not at all.
 * `test/group-deletion.test.ts` fails when a model with scope columns has no registered removal, so an
 * area added later cannot leave orphans; removals take the scope's kind, so a kind added later (the course)
 * uses the same ones.
 */
export interface ScopeContent {
  /** The area, as in its events ("wiki", "blog", "announcements"). */
  area: string;
  /** The Prisma models whose scoped rows this removal deletes. */
  models: string[];
  /** Deletes the scope's records of this area inside `tx` (a context whose `tx` is the open write transaction); answers how many. */
  remove(tx: RequestContext, scope: FixedScope): Promise<number>;
}

const registered = new Map<string, ScopeContent>();

export function registerScopeContent(content: ScopeContent): ScopeContent {
  if (registered.has(content.area)) throw new Error(`scope content of ${content.area} is registered twice`);
  registered.set(content.area, content);
  return content;
}

/**
 * Deletes everything every area keeps in `scope`, inside the deleting write's transaction (`tx`), each record with
 * its own deleted event, then the scope's counters: what deleting a record that is a scope (a group, a course:
 * `isScope`) does first (src/common/area.ts). Forgetting the counters before the scope's own record goes is as
 * after it: the record's own table counts unscoped ('' and 0), and what cascades from it keeps none.
 */
export async function removeScopeContents(tx: RequestContext, scope: FixedScope): Promise<void> {
  for (const content of scopeContents()) await content.remove(tx, scope);
  await forgetScopeCounts(sqlOf(tx), scope);
}

/**
 * Every registered removal, in registration order, except that one whose records refer to another's (a
 * forum post to its category, a category to its section: a foreign key of the Prisma model) runs before
 * it: the referred-to rows' deletion would otherwise cascade to the referring ones without their events.
 */
export function scopeContents(): readonly ScopeContent[] {
  const contents = [...registered.values()];
  const models = prismaDatamodel().datamodel.models;
  const refersTo = (content: ScopeContent, other: ScopeContent) =>
    content !== other &&
    content.models.some((model) =>
      models[model]?.fields.some((field) => field.kind === "object" && field.relationFromFields?.length && other.models.includes(field.type)),
    );
  const ordered: ScopeContent[] = [];
  // Each round takes, in registration order, the first content nothing left refers to (a few areas: no need for more).
  while (contents.length) {
    const next = contents.findIndex((content) => !contents.some((other) => refersTo(other, content)));
    if (next < 0) throw new Error(`scope contents refer to each other in a cycle: ${contents.map((content) => content.area).join(", ")}`);
    ordered.push(...contents.splice(next, 1));
  }
  return ordered;
}
