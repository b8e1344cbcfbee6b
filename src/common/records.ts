import { Prisma } from "../generated/prisma/client.js";
import type { RequestContext } from "./context.js";
import type { AccessLevels } from "./access.js";
import { scopeKindIfRegistered, type RelationName, type ScopeKind, type UserRef } from "./scope-kinds.js";

/**
 * The records an area lists and reads, declared once (src/<area>/service.ts): which Prisma model, whether
 * records belong to scopes, what "published" means, the access levels, who created them. From it the kit
 * writes the one SQL statement of each read and list (src/common/paging.ts), the visibility rule in SQL,
 * and the count keys the list_counts triggers keep (docs/adding-an-area.md).
 */
export interface RecordsDeclaration {
  /** The Prisma model; its table and columns come from the generated client. */
  model: Prisma.ModelName;
  /** Records carry `scope`/`scopeId` (src/common/scope-kinds.ts); private records of a scope are its members'. */
  scoped: boolean;
  /** A record is published when this integer field holds this value (wiki and blog `state` 1). */
  published: { field: string; value: number };
  /** Published records are shown only from `up` until `down` (null: open-ended), as the blog's window. */
  window?: { up: string; down: string };
  /** Access levels, stored in the field `accessField` names (default `access`); absent: every published record is public. */
  access?: AccessLevels;
  /** The field holding the access level, when it is not `access` (groups keep it in `discoverability`). */
  accessField?: string;
  /**
   * Unscoped records that are themselves the scopes of a kind (a group is the scope `group`, its id the scope
   * id): the kind's relations are theirs. Its members see a private record (lists, totals: a hidden group), its
   * readers read it too (`ScopeKind.readers`: a hidden group's invitees, who find it in no list), its managers
   * manage it, and its events are in its own scope, so whoever may read the scope's private records learns of
   * them. Served by indexes led by the user id: totals add a user's private records up per user.
   */
  isScope?: string;
  /**
   * Fields only some readers see, null to everyone else but administrators: `members`, the members of the
   * record (`isScope`: a group's private description, to its members), masked in the read's and list's own
   * statement; `self`, the record itself (an account's e-mail address and role, to its owner), which a reader
   * knows without asking the database, so the type's fields answer it (src/graphql/area.ts). The write path
   * reads the stored values.
   */
  privateFields?: { fields: string[]; shownTo: "members" | "self" };
  /**
   * A boolean (or 0/1 integer) field that hides the record's author (anonymous posts): its events name no actor
   * but to the author and administrators, and a change of it makes who is shown as the author be decided again.
   */
  anonymous?: string;
  /** Records only administrators read (plugin records): every read, list, total and subscription finds none for anyone else. */
  administratorsOnly?: true;
  /**
   * Records shown to an audience instead of by state and level (activity entries, to their recipients):
   * `hears`, the condition over the record's id column that the user (null: anonymous callers) is in it (the
   * user's id may be a column or a placeholder, `UserRef`: decide only whether it is null, else interpolate it);
   * `total`, the exact number of one scope's records the viewer hears, as one SQL value, for a list with no other
   * condition (src/common/paging.ts; absent, or with a search or filter, the rows are counted). `published` and
   * `access` are then not asked; events say 'private'. The recipients are the area's own table, read through the
   * scope kinds' relations (src/activity/readers.ts), which is why this one part of a policy is SQL the area
   * gives: docs/decisions.md, "Activity's total" (D8).
   */
  audience?: {
    hears: (id: Prisma.Sql, userId: UserRef | null) => Prisma.Sql;
    total?: (viewer: RequestContext["viewer"], scope: { scope: string; scopeId: number }) => Prisma.Sql;
  };
  /** Creators see their own records whatever their state (the contract's rule); absent: they do not. */
  creator?: string;
  /**
   * Records under a parent record of the same kind (a forum reply under its thread, `field` its id): the creator
   * reads theirs only where they may read the parent, whose creator rule is asked plain (no recursion). A record
   * whose `root` field holds the value has no parent (a thread's starter). The parent is asked by primary key, as
   * a scalar sub-select: an EXISTS became a hashed scan of every post.
   */
  parent?: { field: string; root: { field: string; value: number } };
  /**
   * The relation to a record's scope whose holders see its every record whatever its state and level, as a
   * creator sees theirs (`managers`: a group's managers moderating its forum), as each scope kind declares it.
   * Totals count every record of such a scope for them (src/common/counted-totals.ts).
   */
  moderatedBy?: RelationName;
  /** Columns kept for `search` only (e.g. a lower-cased copy of a text): never read. */
  searchOnly?: string[];
  /**
   * `false`: never listed, so its table has no counters (users: the declaration serves the write path's
   * answers). Every other declaration's table carries the `list_counts_track` triggers its fields name
   * (`countTriggerArguments`), checked by `npm run db:check` and test/count-triggers.test.ts.
   */
  counted?: false;
}

const declarations: RecordsDeclaration[] = [];

/** Every records declaration made so far (the areas' modules make theirs when imported: src/areas.ts). */
export const declaredRecords = (): readonly RecordsDeclaration[] => declarations;

/** Refuses a declaration the kit cannot serve (records() asks it of every declaration). */
export function checkRecordsDeclaration(declaration: RecordsDeclaration): RecordsDeclaration {
  if (declaration.isScope && declaration.scoped) throw new Error(`${declaration.model}: isScope is for unscoped records (a record in a scope is not one itself)`);
  // countedTotal (src/common/counted-totals.ts) adds the private records a user may see to the counted ones; with a
  // window it would add them before taking off the ones outside it, so they would be counted twice.
  if (declaration.isScope && declaration.window) {
    throw new Error(`${declaration.model}: isScope and window together are not supported: the list totals would count private records twice (src/common/counted-totals.ts, countedTotal)`);
  }
  if (declaration.parent && !declaration.creator) throw new Error(`${declaration.model}: parent narrows the creator rule, and there is no creator`);
  if (declaration.parent && !Number.isSafeInteger(declaration.parent.root.value)) throw new Error(`${declaration.model}: parent.root.value must be an integer`);
  // "self": the record is an account, its id the viewer's user id.
  if (declaration.privateFields?.shownTo === "self" && declaration.model !== "User") throw new Error(`${declaration.model}: privateFields shown to "self" are an account's (the User model's): its id is its owner's`);
  if (declaration.privateFields?.shownTo === "members" && !declaration.isScope) throw new Error(`${declaration.model}: privateFields shown to the record's members need isScope (whose members they are)`);
  return declaration;
}

/**
 * Declares an area's records (the fields are checked against the Prisma model when first used): once per
 * model, so whatever reads the declarations (the counter triggers' check) finds the one that rules.
 */
export const records = (declaration: RecordsDeclaration): RecordsDeclaration => {
  checkRecordsDeclaration(declaration);
  if (declarations.some((declared) => declared.model === declaration.model)) throw new Error(`${declaration.model}: its records are declared already; a model has one records declaration`);
  declarations.push(declaration);
  return declaration;
};

/** The field holding a declaration's access level. */
export const accessFieldOf = (declaration: RecordsDeclaration): string => declaration.accessField ?? "access";

/** Why a visibility rule is asked: a list or total (`list`), or one record's read or write (`read`). */
export type Purpose = "list" | "read";

/**
 * The kind whose scopes the records are (`isScope`), looked up when asked: kinds register before any request,
 * not necessarily before the declaration is made.
 */
export function ownKindOf(declaration: RecordsDeclaration): ScopeKind | undefined {
  if (!declaration.isScope) return undefined;
  const kind = scopeKindIfRegistered(declaration.isScope);
  // A programming error, not a caller's: test/area-declaration.test.ts checks every declaration's kind is registered.
  if (!kind) throw new Error(`${declaration.model}: isScope names the scope kind ${JSON.stringify(declaration.isScope)}, which no module registered`);
  return kind;
}

/**
 * The sub-select of unscoped record ids whose private level `userId` may see, for `purpose` (lists and totals
 * its kind's members, reads its readers: `ScopeKind.readers`); null: none.
 */
export function privateToSql(declaration: RecordsDeclaration, userId: UserRef, purpose: Purpose): Prisma.Sql | null {
  const kind = ownKindOf(declaration);
  return (purpose === "read" ? readersOf(kind) : kind?.members)?.scopesOf(userId) ?? null;
}

/** Who reads a record that is a scope of `kind` where it is private: the kind's readers, else its members. */
const readersOf = (kind: ScopeKind | undefined) => kind?.readers ?? kind?.members;

/**
 * The users who read the record `recordId` where it is private (the inverse of `privateToSql` for reads: a
 * group's members and invitees), as a sub-select: a deletion's event keeps them, for the memberships go with the
 * record, and who is told of a gone record is decided when its event is delivered (docs/policy-design.md, D14).
 */
export function recordReadersSql(declaration: RecordsDeclaration, recordId: Prisma.Sql): Prisma.Sql | null {
  return readersOf(ownKindOf(declaration))?.usersOf(recordId) ?? null;
}

/** The sub-select of the records `userId` manages as records of their own (`isScope`: the kind's managers); null: none. */
export function recordsManagedSql(declaration: RecordsDeclaration, userId: UserRef): Prisma.Sql | null {
  return ownKindOf(declaration)?.managers?.scopesOf(userId) ?? null;
}

/**
 * The scope a record's events and activity are in, over its fields (`field`: a column of the statement): its
 * scope columns; for a record that is a scope (`isScope`), its own kind and id; else the site.
 */
export function recordEventScope(declaration: RecordsDeclaration, field: (name: string) => Prisma.Sql): { scope: Prisma.Sql; scopeId: Prisma.Sql } {
  if (declaration.scoped) return { scope: field("scope"), scopeId: field("scopeId") };
  return { scope: Prisma.sql`${declaration.isScope ?? "site"}::text`, scopeId: declaration.isScope ? field("id") : Prisma.sql`0` };
}
