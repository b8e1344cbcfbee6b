import { Prisma, type PrismaClient } from "../generated/prisma/client.js";
import { utcTimestamp, utcTimestampText } from "../db/sql.js";
import type { RequestContext } from "./context.js";
import type { AccessLevelName } from "./access.js";
import { belongsSql, belongsToRecordScopeSql, recordScopeSql, scopeKindCount, scopeSecludedSql, secludedScopeSql, type FixedScope, type UserRef } from "./scope-kinds.js";
import { callerClass, fold, leavesOf, policyOf, renderSql, ruleOnce, type Known, type Leaf } from "./policy.js";
import { Slot, TemplateCache } from "./sql-template.js";
import { type Purpose, type RecordsDeclaration, accessFieldOf, privateToSql, recordsManagedSql } from "./records.js";
import { type ModelInfo, column, modelInfo, table } from "./model.js";

// ---------------------------------------------------------------------------------------------------
// Visibility: the contract's access rule in SQL.

/**
 * Whom a rule is asked about: an anonymous caller (`user` null) or a user, an administrator reading
 * everything. A request's viewer is one; so is "each of these users", whose id is a column of the statement
 * (`UserRef`): the rule's SQL is the same for every signed-in user who is not an administrator.
 */
export interface RuleViewer {
  user: { id: UserRef; isAdmin: boolean } | null;
}

const inList = (expression: Prisma.Sql, values: readonly number[]) =>
  values.length ? Prisma.sql`${expression} IN (${Prisma.join(values)})` : Prisma.sql`FALSE`;

/** Published and, for windowed records, inside the window at `now` (a moment, or one as SQL: a template's slot). */
export function publishedSql(info: ModelInfo, declaration: RecordsDeclaration, alias: string, now: Date | Prisma.Sql): Prisma.Sql {
  return publishedOver(declaration, (field) => column(info, alias, field), now instanceof Date ? utcTimestamp(now) : now);
}

/** Published and, for windowed records, inside the window at `at`, over the fields as `fieldSql` gives them. */
export function publishedOver(declaration: RecordsDeclaration, fieldSql: (field: string) => Prisma.Sql, at: unknown): Prisma.Sql {
  const published = Prisma.sql`${fieldSql(declaration.published.field)} = ${declaration.published.value}`;
  if (!declaration.window) return published;
  const up = fieldSql(declaration.window.up);
  const down = fieldSql(declaration.window.down);
  return Prisma.sql`${published} AND ${up} <= ${at} AND (${down} IS NULL OR ${down} > ${at})`;
}

/**
 * What the caller may see (the contract's "Access"), as the declaration's rule (src/common/policy.ts) reads it
 * over the row `alias`: administrators everything, creators their own records, moderators their scopes', everyone
 * else published records at a level they qualify for, outside the scopes secluded from them (a hidden group's
 * records, to whoever is not its member: the scope kind's `secluded`). `listScope`: the scope a list fixes, so
 * only its kind's membership is asked and whether it is secluded once per statement; lists of kinds that seclude
 * nothing get no condition for it.
 */
export function visibleSql(
  prisma: PrismaClient,
  declaration: RecordsDeclaration,
  viewer: RuleViewer,
  alias = "t",
  now = new Date(),
  listScope?: FixedScope,
  purpose: Purpose = "read",
  /** The creator rule without its `parent` (how the parent is read: no recursion). */
  plainCreator = false,
): Prisma.Sql {
  return questionSql(declaration, `visible ${alias} ${purpose} ${plainCreator}`, { viewer, now, listScope }, ({ viewer, at, listScope }) =>
    renderVisible(prisma, declaration, viewer, alias, at, listScope, purpose, plainCreator),
  )!;
}

function renderVisible(prisma: PrismaClient, declaration: RecordsDeclaration, viewer: RuleViewer, alias: string, at: Prisma.Sql, listScope: FixedScope | undefined, purpose: Purpose, plainCreator: boolean) {
  const leaves = rowLeaves(modelInfo(prisma, declaration.model), declaration, viewer, alias, at, listScope, purpose, plainCreator, prisma);
  return renderSql(fold(policyOf(declaration).visible, leaves.known), leaves.sql, { enclosed: true });
}

const VIEWER_ID = new Slot("the viewer's id");
const MOMENT = new Slot("the moment");
const NEXT_MIDNIGHT = new Slot("the next UTC midnight");
const LISTED_SCOPE_ID = new Slot("the listed scope's id");
const questionTemplates = new TemplateCache<RecordsDeclaration>();

/** What a rule's SQL is asked about: a viewer, at a moment, in a list of one scope or not. */
export interface Question {
  viewer: RuleViewer;
  now: Date;
  listScope?: FixedScope;
}

/** A question as its SQL is rendered once for every question of its shape: the values that differ are slots. */
export interface QuestionSlots {
  viewer: RuleViewer;
  /** The moment, as a `timestamp(3)`. */
  at: Prisma.Sql;
  /** The UTC midnight after the moment, as a `timestamp(3)` (the totals' day buckets). */
  nextMidnight: Prisma.Sql;
  listScope: FixedScope | undefined;
}

/**
 * SQL about one declaration's records for a question (a rule's condition, a list's total), rendered once per
 * shape (`shape`: what the SQL is and over which alias; the viewer's class: anonymous, a user, an administrator;
 * the listed scope's kind; the scope kinds registered) and filled with the question's values after: the viewer's
 * id, the moment, the listed scope's id (src/common/sql-template.ts). `render` gets them as slots and must only
 * interpolate them, each as a value of its own (not inside an array): whatever it decides, the key must name.
 */
export function questionSql(declaration: RecordsDeclaration, shape: string, question: Question, render: (slots: QuestionSlots) => Prisma.Sql | null): Prisma.Sql | null {
  const { viewer, now, listScope } = question;
  const user = viewer.user;
  const key = `${shape} ${callerClass(user)} ${listScope?.scope ?? "-"} ${scopeKindCount()}`;
  return questionTemplates.filled(
    declaration,
    key,
    () =>
      render({
        viewer: { user: user && { id: VIEWER_ID as unknown as UserRef, isAdmin: user.isAdmin } },
        at: Prisma.sql`${MOMENT}::timestamp(3)`,
        nextMidnight: Prisma.sql`${NEXT_MIDNIGHT}::timestamp(3)`,
        listScope: listScope && { scope: listScope.scope, scopeId: LISTED_SCOPE_ID as unknown as number },
      }),
    (slot) => {
      if (slot === VIEWER_ID) return user!.id;
      if (slot === MOMENT) return utcTimestampText(now);
      if (slot === NEXT_MIDNIGHT) return utcTimestampText(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1)));
      if (slot === LISTED_SCOPE_ID) return listScope!.scopeId;
      throw new Error(`questionSql has no value for ${slot.name}`);
    },
  );
}

/**
 * What a list's total asks of the caller beyond the counters (src/common/counted-totals.ts, countedTotal;
 * src/common/cached-totals.ts), by the leaves the rule still asks once who they are is known: about the list's
 * scope, decided once per statement (`once`, in this order — the cases of a caller who moderates the scope or is
 * secluded from it are the simplest —: moderates it, is secluded from it, belongs to it), and about each row
 * (`perRow`: membership of unscoped records private to some users, `privateToSql`). `known(own)` is
 * what a total knows of the rule for the others' rows (`own` false) or the caller's own (true); a total of an
 * audience's records is counted otherwise (paging.ts, listStatements), so `hears` is false.
 */
export function totalQuestions(
  declaration: RecordsDeclaration,
  viewer: RuleViewer,
  scope: FixedScope | null,
): { once: Map<Leaf, Prisma.Sql>; privateTo: Prisma.Sql | null; perRow: Leaf[]; known(own: boolean): Known } {
  const user = viewer.user;
  const asked = ruleOnce(declaration, `total asks ${callerClass(user)}`, () =>
    leavesOf(fold(policyOf(declaration).visible, (leaf) => (leaf === "administrator" ? (user?.isAdmin ?? false) : leaf === "signedIn" ? user !== null : leaf === "own" ? false : undefined))),
  );
  const once = new Map<Leaf, Prisma.Sql>();
  const inScope = scope && declaration.scoped ? scope : null;
  const moderates = user && inScope && asked.includes("moderates") ? moderatedScopeSql(declaration, user.id, Prisma.sql`${inScope.scope}::text`, Prisma.sql`${inScope.scopeId}::int`) : null;
  if (moderates) once.set("moderates", moderates);
  const secluded = inScope && asked.includes("secluded") ? scopeSecludedSql(inScope, user?.id ?? null) : null;
  if (secluded) once.set("secluded", secluded);
  const member = user && inScope && asked.includes("member") ? belongsSql(inScope.scope, Prisma.sql`${inScope.scopeId}`, user.id) : null;
  if (member) once.set("member", member);
  const privateTo = user && !declaration.scoped && asked.includes("member") ? privateToSql(declaration, user.id, "list") : null;
  const perRow: Leaf[] = privateTo ? ["member"] : [];
  return {
    once,
    privateTo,
    perRow,
    known: (own) => (leaf) => {
      if (leaf === "administrator") return user?.isAdmin ?? false;
      if (leaf === "signedIn") return user !== null;
      if (leaf === "own") return own;
      if (leaf === "hears") return false;
      if (leaf === "moderates" || leaf === "member" || leaf === "secluded") return once.has(leaf) || perRow.includes(leaf) ? undefined : false;
      return undefined;
    },
  };
}

/**
 * Who may change (update, delete) a record, as SQL over its row at `alias` (the write path evaluates it on
 * the locked row): the declaration's `manages` rule — administrators, its creator, whoever its scope's kind says
 * manages the scope, its own managers (`isScope`: the kind's managers). `lock` (default): asked inside a write, the kind's managers
 * locked; unlocked, who hears a record's events for its managers (`readableBy`, for many viewers at once: the
 * viewer's id may be a column).
 */
export function managesSql(info: ModelInfo, declaration: RecordsDeclaration, alias: string, viewer: RuleViewer, { lock = true }: { lock?: boolean } = {}): Prisma.Sql {
  return questionSql(declaration, `manages ${alias} ${lock}`, { viewer, now: new Date() }, ({ viewer, at }) => {
    const leaves = rowLeaves(info, declaration, viewer, alias, at, undefined, "read", true, undefined, lock);
    return renderSql(fold(policyOf(declaration).manages, leaves.known), leaves.sql, { enclosed: true });
  })!;
}

/**
 * The condition a search index's row needs (issue 31): the record `recordId` (an expression of the index's
 * statement) still exists and the caller may find it in a list now, by the area's own rule decided on the live
 * record — so an index that lags a change of access, state, scope, membership or deletion shows less, never
 * more. One primary-key probe per candidate.
 */
export function searchConditionSql(prisma: PrismaClient, declaration: RecordsDeclaration, viewer: RuleViewer, recordId: Prisma.Sql, now = new Date()): Prisma.Sql {
  const info = modelInfo(prisma, declaration.model);
  return Prisma.sql`EXISTS (SELECT 1 FROM ${table(info, "searched")} WHERE ${column(info, "searched", "id")} = ${recordId} AND ${visibleSql(prisma, declaration, viewer, "searched", now, undefined, "list")})`;
}

/**
 * The creator rule for the signed-in viewer, over the record's alias: their own record, and what
 * its `parent` asks too (a forum reply: its thread readable to them). Null without a creator field. The
 * list totals count the viewer's own rows by it (src/common/cached-totals.ts).
 */
export function ownRecordSql(
  prisma: PrismaClient,
  declaration: RecordsDeclaration,
  viewer: RuleViewer,
  alias: string,
  now: Date,
  listScope?: FixedScope,
  purpose: Purpose = "read",
  plainCreator = false,
): Prisma.Sql | null {
  return questionSql(declaration, `own ${alias} ${purpose} ${plainCreator}`, { viewer, now, listScope }, ({ viewer, at, listScope }) => {
    const leaves = rowLeaves(modelInfo(prisma, declaration.model), declaration, viewer, alias, at, listScope, purpose, plainCreator, prisma);
    const own = fold(policyOf(declaration).own, leaves.known);
    return own === false ? null : renderSql(own, leaves.sql);
  });
}

/**
 * The row interpreter of the rule: each leaf over the row `alias` for `viewer`, known (a boolean) where the
 * viewer or the declaration decides it, SQL otherwise. (Exported for the totals, which count some rows.)
 */
export function rowLeaves(
  info: ModelInfo,
  declaration: RecordsDeclaration,
  viewer: RuleViewer,
  alias: string,
  /** The moment the rule is asked at, as SQL (a window's bounds are compared with it). */
  at: Prisma.Sql,
  listScope: FixedScope | undefined,
  purpose: Purpose,
  plainCreator: boolean,
  prisma?: PrismaClient,
  /** Inside a write: the scope kind's managers asked locked (`lockedFor`). */
  lock = false,
): { known: Known; sql: (leaf: Leaf) => Prisma.Sql } {
  const user = viewer.user;
  const scope = () => column(info, alias, "scope");
  const scopeId = () => column(info, alias, "scopeId");
  const memo = new Map<string, Prisma.Sql | boolean>();
  const decide = (leaf: Exclude<Leaf, { level: unknown }>): Prisma.Sql | boolean => {
    if (memo.has(leaf)) return memo.get(leaf)!;
    const value = ((): Prisma.Sql | boolean => {
      switch (leaf) {
        case "administrator":
          return user?.isAdmin ?? false;
        case "signedIn":
          return user !== null;
        case "own":
          return user && declaration.creator ? Prisma.sql`${column(info, alias, declaration.creator)} = ${user.id}` : false;
        case "parentReadable": {
          const parent = declaration.parent;
          if (plainCreator || !parent) return true;
          const other = `${alias}_parent`;
          return Prisma.sql`(${column(info, alias, parent.root.field)} = ${Prisma.raw(String(parent.root.value))} OR COALESCE((SELECT TRUE FROM ${table(info, other)} WHERE ${column(info, other, "id")} = ${column(
            info,
            alias,
            parent.field,
          )} AND ${renderVisible(prisma!, declaration, viewer, other, at, listScope, purpose, true)}), FALSE))`;
        }
        case "moderates":
          return (user && declaration.scoped && moderatedScopeSql(declaration, user.id, scope(), scopeId())) || false;
        case "hears":
          return declaration.audience ? declaration.audience.hears(column(info, alias, "id"), user?.id ?? null) : false;
        case "published":
          return publishedSql(info, declaration, alias, at);
        case "member": {
          if (!user) return false;
          const privateTo = privateToSql(declaration, user.id, purpose);
          if (privateTo) return Prisma.sql`${column(info, alias, "id")} IN (${privateTo})`;
          return (declaration.scoped && belongsToRecordScopeSql(scope(), scopeId(), user.id, listScope?.scope)) || false;
        }
        case "managesScope":
          return (user && declaration.scoped && recordScopeSql(scope(), scopeId(), "managers", user.id, { lock })) || false;
        case "managesRecord": {
          const managed = user && recordsManagedSql(declaration, user.id);
          return managed ? Prisma.sql`${column(info, alias, "id")} IN (${managed})` : false;
        }
        case "secluded":
          return (declaration.scoped && secludedScopeSql(scope(), scopeId(), user?.id ?? null, listScope)) || false;
      }
    })();
    memo.set(leaf, value);
    return value;
  };
  const levelValues = (leaf: { level: readonly AccessLevelName[] }) => leaf.level.flatMap((level) => declaration.access?.valuesOf(level) ?? []);
  return {
    known: (leaf) => {
      if (typeof leaf === "object") return levelValues(leaf).length ? undefined : false;
      const value = decide(leaf);
      return typeof value === "boolean" ? value : undefined;
    },
    sql: (leaf) => {
      if (typeof leaf === "object") return inList(column(info, alias, accessFieldOf(declaration)), levelValues(leaf));
      const value = decide(leaf);
      if (typeof value === "boolean") throw new Error(`the rule's ${leaf} was known (${value}) and folded away`);
      return value;
    },
  };
}

/** Whether the user moderates the scope (`moderatedBy`: they see every record of it), or null for records no one moderates. */
export function moderatedScopeSql(declaration: RecordsDeclaration, userId: UserRef, scope: Prisma.Sql, scopeId: Prisma.Sql): Prisma.Sql | null {
  return declaration.moderatedBy ? recordScopeSql(scope, scopeId, declaration.moderatedBy, userId) : null;
}

/**
 * The condition that keeps a request confined to the scope its path names (`RequestContext.confinedTo`,
 * set by a group plugin path): a record of another scope is not there for it. TRUE when unconfined.
 */
export function confinementSql(ctx: RequestContext, declaration: RecordsDeclaration, alias = "t"): Prisma.Sql {
  if (!ctx.confinedTo) return Prisma.sql`TRUE`;
  // An unscoped record belongs to no group: a confined request never finds one.
  if (!declaration.scoped) return Prisma.sql`FALSE`;
  const info = modelInfo(ctx.db, declaration.model);
  return Prisma.sql`${column(info, alias, "scope")} = ${ctx.confinedTo.scope} AND ${column(info, alias, "scopeId")} = ${ctx.confinedTo.scopeId}`;
}
