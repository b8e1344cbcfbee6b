import { z } from "zod";
import { Prisma } from "../generated/prisma/client.js";
import type { RequestContext } from "../common/context.js";
import { createdByField, createdField, fieldTable } from "../common/fields.js";
import { records } from "../common/records.js";
import { recordScopeSql, scopeKindField, type UserRef } from "../common/scope-kinds.js";

/**
 * Whether the recipient row `alias` is the user's: sent to them (`member:<id>`, the documented form), or to
 * a scope they belong to now, as its kind declares (a group: the feed, reads, list totals). The scopes as
 * arrays the recipients' indexes are probed with: an IN sub-select read every group recipient (313,000 rows
 * at 10^6 entries).
 */
export function sentToMember(alias: string, userId: UserRef): Prisma.Sql {
  const r = (column: string) => Prisma.raw(`${alias}.${column}`);
  const belongs = recordScopeSql(r("scope"), r("scope_id"), "members", userId, { asArray: true });
  return Prisma.sql`((${r("scope")} = 'member' AND ${r("scope_id")} = ${userId})${belongs ? Prisma.sql` OR ${belongs}` : Prisma.empty})`;
}

/**
 * Who hears an entry (docs/decisions.md, "Activity"): everyone when it is sent to the site (`site:0`, public),
 * a member when sent to them (`member:<id>`), a group's current members when sent to the group. Membership
 * is asked at read time: a new member sees the group's earlier entries, a member who left no longer does.
 */
export function heardBy(id: Prisma.Sql, userId: UserRef | null): Prisma.Sql {
  const to = userId === null ? Prisma.sql`r.scope = 'site' AND r.scope_id = 0` : Prisma.sql`((r.scope = 'site' AND r.scope_id = 0) OR ${sentToMember("r", userId)})`;
  // A scalar sub-select, not EXISTS: asked per row of the list's own index order through the recipients'
  // primary key (an EXISTS becomes a semi-join from the recipients, and a sort).
  return Prisma.sql`COALESCE((SELECT TRUE FROM activity_recipients r WHERE r.entry_id = ${id} AND ${to} LIMIT 1), FALSE)`;
}

/**
 * A scope's entries a viewer hears, without counting rows where the counters can say (list_counts keeps,
 * per scope and creator, the entries sent to the site and the others): administrators all; anonymous
 * callers those sent to the site; a signed-in user those, plus their own others, plus the others sent to
 * them or their groups by someone else — the one part counted, through the recipients' index of their
 * channels (bounded by what was sent to them, not by the scope's entries).
 */
export function heardTotal(viewer: RequestContext["viewer"], scope: { scope: string; scopeId: number }): Prisma.Sql {
  const kept = (condition: Prisma.Sql) =>
    Prisma.sql`coalesce((SELECT sum(c.rows) FROM list_counts c WHERE c.table_name = 'activity' AND c.scope = ${scope.scope} AND c.scope_id = ${scope.scopeId} AND ${condition}), 0)`;
  const user = viewer.user;
  if (user?.isAdmin) return Prisma.sql`SELECT ${kept(Prisma.sql`c.created_by = 0`)}::int`;
  const sentToSite = kept(Prisma.sql`c.created_by = 0 AND c.published`);
  if (!user) return Prisma.sql`SELECT ${sentToSite}::int`;
  const ownOthers = kept(Prisma.sql`c.created_by = ${user.id} AND NOT c.published`);
  // Each entry once: through the first of the caller's channels it was sent to (a probe of the recipients'
  // primary key), so no sort or de-duplication of the rows.
  // The entry is asked by primary key per row (a scalar sub-select: a join would sort the rows to merge them).
  const sentToThem = Prisma.sql`(SELECT count(*) FROM activity_recipients r
      WHERE ${sentToMember("r", user.id)}
        AND NOT EXISTS (SELECT 1 FROM activity_recipients o WHERE o.entry_id = r.entry_id AND (o.scope, o.scope_id) < (r.scope, r.scope_id) AND ${sentToMember("o", user.id)})
        AND COALESCE((SELECT TRUE FROM activity t WHERE t.id = r.entry_id AND t.scope = ${scope.scope} AND t.scope_id = ${scope.scopeId}
                                                     AND t.sent_to_site = 0 AND t.created_by <> ${user.id}), FALSE))`;
  return Prisma.sql`SELECT (${sentToSite} + ${ownOthers} + ${sentToThem})::int`;
}

/** Activity entries, shown to their recipients (plus their creator and administrators), never by level. */
export const ACTIVITY_RECORDS = records({
  model: "ActivityEntry",
  scoped: true,
  // "Published" is sent to the site (public): what the list's counters count by. Reads ask `audience`.
  published: { field: "sentToSite", value: 1 },
  audience: { hears: heardBy, total: heardTotal },
  creator: "createdById",
  // An anonymous entry's actor is shown to its author and administrators only.
  anonymous: "anonymous",
});

const flag = z.number().int().min(0).max(1);

/** The activity entry's fields (src/common/fields.ts). */
export const activityFields = {
  scope: { type: "String", rule: scopeKindField, required: "create", description: "Scope type (site, group, member, …).", rest: { description: "Scope type (group, member, etc.).", privacy: true } },
  scopeId: { type: "Int", rule: z.number().int().min(0), required: "create", description: "Scope object ID.", rest: { description: "Scope object ID.", privacy: true } },
  action: { type: "String", rule: z.string().trim().min(1, "must not be empty").max(255), required: "create", rest: { description: "Action taken." } },
  alias: { type: "String", rule: z.string().trim().max(255), rest: { description: "Entry alias." } },
  description: { type: "String", rule: z.string().trim().min(1, "must not be empty").max(65535), required: "create", rest: { description: "Description of the activity." } },
  created: createdField,
  createdBy: { ...createdByField, rest: { name: "crated_by", alsoNamed: ["created_by"], description: "User ID of the creator (0: the caller); spelled as the API document spells it, created_by is accepted too." } },
  anonymous: { type: "Int", rule: flag, default: 0, description: "1: the actor is shown only to the author and administrators.", rest: { description: "0 = false, 1 = true.", privacy: true } },
  parent: { type: "Int", rule: z.number().int().min(0), default: 0, column: "parentId", description: "ID of the parent entry (0: none); must exist.", rest: { description: "ID of parent activity." } },
  recipients: {
    type: "String",
    rule: z.string().trim().max(4000),
    default: "1",
    column: false,
    description: "Comma-separated <scope>:<scope_id> pairs (a bare id is a member); 1: the entry's own scope.",
    rest: { description: "Comma-separated list of <scope>:<scope_id> pairs (1: the entry's own scope).", privacy: true },
  },
  recipientChannel: {
    type: "Int",
    rule: z.number().int().min(0).max(1),
    only: "update",
    column: false,
    description: "Recipient channels: 1 re-addresses the entry to its own scope, 0 to nobody but its author.",
    rest: { name: "recipients", description: "List of recipient channels: 1 the entry's own scope, 0 nobody but the author.", privacy: true },
  },
} as const;

/** The entries' inputs as the service parses them (the declaration's table is the same fields), made apart from the declaration, whose own writes' types read it. */
export const ACTIVITY_FIELDS = fieldTable(activityFields);
