import { Prisma } from "../generated/prisma/client.js";
import type { AccessLevelName } from "./access.js";
import type { RecordsDeclaration } from "./records.js";

/**
 * Who may see a record, as one small tree per declaration (docs/policy-design.md §3.3): the contract's rule
 * (administrators everything; creators their own; moderators their scopes'; everyone else published records at
 * a level they qualify for, outside the scopes secluded from them; an audience where records have one). The tree
 * is data; each place that needs the rule interprets it, so none restates it:
 *
 * - reads, lists, locks and the write path: `visibleSql` (src/common/visibility.ts) renders it as SQL over a row;
 * - an event's `visibility` and `published` (src/common/write-events.ts, `eventParts`): the tree for an
 *   anonymous caller and for a signed-in user who belongs nowhere, over the written row;
 * - who reads a record that is gone (src/events/subscriptions.ts, `readableBy`): the tree over what its event
 *   recorded, membership and moderation asked of the event's scope;
 * - which changed fields make readers be decided again (activity's entries, a thread's replies): the fields the
 *   tree reads (`readershipFieldsOf`);
 * - totals: the tree split into the cases a statement decides once and what the counters hold
 *   (src/common/policy-counting.ts: `casesOf`, `countingOf`).
 *
 * A leaf is a fact about the viewer, the record or both. An interpreter says which leaves it knows (`fold`: a
 * boolean) and renders the rest (`renderSql`); what is known folds away, so an interpreter that knows every leaf
 * answers a boolean, and SQL carries only what the database must decide.
 */
export type Leaf =
  /** The viewer is an administrator. */
  | "administrator"
  /** The viewer is signed in. */
  | "signedIn"
  /** The viewer created the record (`creator`). */
  | "own"
  /** The record's parent is readable to the viewer, its creator rule plain (`parent`: a forum reply's thread). */
  | "parentReadable"
  /** The viewer holds the relation `moderatedBy` names to the record's scope (a group's managers, its forum). */
  | "moderates"
  /** The viewer is in the record's audience (`audience`: an activity entry's recipients). */
  | "hears"
  /** The record is published (inside its window, where it has one). */
  | "published"
  /** The viewer may see the record's private level: a member of its scope, or of the record itself (`isScope`). */
  | "member"
  /** The record's scope is secluded from the viewer (a hidden group, to whoever is not its member). */
  | "secluded"
  /** The viewer manages the record's scope (the scope kind's `managers`): they change others' records in it. */
  | "managesScope"
  /** The viewer manages the record itself (`isScope`: a group's managers, their group). */
  | "managesRecord"
  /** The record's access level is one of these. */
  | { level: readonly AccessLevelName[] };

export type Rule = boolean | Leaf | { any: readonly Rule[] } | { all: readonly Rule[] } | { not: Rule };

/**
 * A declaration's rule: `visible`, the whole of it; `levelShown`, its part about access levels (public to everyone,
 * registered to signed-in users, private to members; true for records without levels); `own`, its creator rule
 * (false without a creator), which the totals count a caller's own rows by.
 */
export interface Policy {
  visible: Rule;
  levelShown: Rule;
  own: Rule;
  /** Who may change (update, delete) a record: administrators, its creator, its scope's managers, its own managers. */
  manages: Rule;
}

const compiled = new WeakMap<RecordsDeclaration, Policy>();

export function policyOf(declaration: RecordsDeclaration): Policy {
  let policy = compiled.get(declaration);
  if (!policy) compiled.set(declaration, (policy = compile(declaration)));
  return policy;
}

function compile(declaration: RecordsDeclaration): Policy {
  const membership = declaration.scoped || declaration.isScope !== undefined;
  const levels = declaration.access;
  // A level no number means is left out (it would be `IN ()`, always false).
  const level = (name: AccessLevelName): Rule => (levels!.valuesOf(name).length ? { level: [name] } : false);
  const levelShown: Rule = levels
    ? { any: [level("public"), { all: ["signedIn", level("registered")] }, ...(membership ? [{ all: ["signedIn", level("private"), "member"] } as const] : [])] }
    : true;
  const own: Rule = declaration.creator ? (declaration.parent ? { all: ["own", "parentReadable"] } : "own") : false;
  const manages: Rule = {
    any: ["administrator", declaration.creator ? "own" : false, declaration.scoped ? "managesScope" : false, declaration.isScope ? "managesRecord" : false],
  };
  if (declaration.administratorsOnly) return { visible: "administrator", levelShown, own, manages };
  if (declaration.audience) return { visible: { any: ["administrator", own, "hears"] }, levelShown, own, manages };
  const shown: Rule = { all: ["published", levelShown, ...(declaration.scoped ? [{ not: "secluded" } as const] : [])] };
  return { visible: { any: ["administrator", own, ...(declaration.scoped && declaration.moderatedBy ? ["moderates" as const] : []), shown] }, levelShown, own, manages };
}

/**
 * What an interpreter knows of a leaf: true, false, undefined (left for `renderSql`), or another rule that means
 * the same for it (a gone record's seclusion: not a member of its scope).
 */
export type Known = (leaf: Leaf) => Rule | undefined;

export const isLevel = (rule: Rule): rule is { level: readonly AccessLevelName[] } => typeof rule === "object" && "level" in rule;

/**
 * The rule with what `known` answers put in and simplified: true or false where nothing is left to ask.
 * Levels side by side in an `any` become one (`access IN (public…, registered…)`, one condition the planner
 * can use, as a list's index conditions need).
 */
export function fold(rule: Rule, known: Known): Rule {
  if (typeof rule === "boolean") return rule;
  if (typeof rule === "string" || isLevel(rule)) {
    const answer = known(rule);
    if (answer === undefined || answer === rule) return rule;
    return typeof answer === "boolean" ? answer : fold(answer, known);
  }
  if ("not" in rule) {
    const inner = fold(rule.not, known);
    if (typeof inner === "boolean") return !inner;
    return typeof inner === "object" && "not" in inner ? inner.not : { not: inner };
  }
  const any = "any" in rule;
  const parts: Rule[] = [];
  for (const part of any ? rule.any : rule.all) {
    const folded = fold(part, known);
    if (folded === any) return any; // true in an any, false in an all
    if (folded === !any) continue;
    // Nested alike: one level (an any inside an any).
    if (typeof folded === "object" && (any ? "any" in folded : "all" in folded)) parts.push(...(any ? (folded as { any: Rule[] }).any : (folded as { all: Rule[] }).all));
    // The same leaf twice says nothing more.
    else if (!(typeof folded === "string" && parts.includes(folded))) parts.push(folded);
  }
  const merged = any ? mergeLevels(parts) : parts;
  if (!merged.length) return !any;
  if (merged.length === 1) return merged[0]!;
  return any ? { any: merged } : { all: merged };
}

function mergeLevels(parts: Rule[]): Rule[] {
  const levels = parts.filter(isLevel);
  if (levels.length < 2) return parts;
  const first = parts.indexOf(levels[0]!);
  const rest = parts.filter((part) => !isLevel(part));
  return [...rest.slice(0, first), { level: levels.flatMap((level) => level.level) }, ...rest.slice(first)];
}

/**
 * The rule as SQL, each leaf left by `fold` given by `leafSql`. `enclosed`: parenthesised even where it is one
 * leaf, whatever that leaf's SQL is, so a caller may put it beside any other condition.
 */
export function renderSql(rule: Rule, leafSql: (leaf: Leaf) => Prisma.Sql, { enclosed = false } = {}): Prisma.Sql {
  return enclosed && (typeof rule === "string" || isLevel(rule)) ? Prisma.sql`(${leafSql(rule)})` : render(rule, leafSql);
}

function render(rule: Rule, leafSql: (leaf: Leaf) => Prisma.Sql): Prisma.Sql {
  if (typeof rule === "boolean") return rule ? Prisma.sql`TRUE` : Prisma.sql`FALSE`;
  if (typeof rule === "string" || isLevel(rule)) return leafSql(rule);
  if ("not" in rule) return Prisma.sql`NOT ${render(rule.not, leafSql)}`;
  if ("any" in rule) return Prisma.sql`(${Prisma.join(rule.any.map((part) => render(part, leafSql)), " OR ")})`;
  return Prisma.sql`(${Prisma.join(rule.all.map((part) => render(part, leafSql)), " AND ")})`;
}

/**
 * What a rule's interpreter derives from a declaration's tree and what it knows of the caller's class (not of
 * the caller: no id, no moment), computed once per `key` and kept with the declaration. Folding, splitting
 * into cases and counting are pure over the tree, so what they give depends on the key alone; a request
 * asks the kept answer instead of folding again (a list's total folded per request cost ≈10 µs of a forum
 * page, issue 27's bench). The trees are never mutated, so a kept rule may be shared.
 */
export function ruleOnce<T>(declaration: object, key: string, derive: () => T): T {
  let kept = derivedRules.get(declaration);
  if (!kept) derivedRules.set(declaration, (kept = new Map()));
  if (!kept.has(key)) kept.set(key, derive());
  return kept.get(key) as T;
}
const derivedRules = new WeakMap<object, Map<string, unknown>>();

/** The class of caller a rule's SQL or a derived rule may depend on (never who they are): the keys of `ruleOnce` and of the rule's templates. */
export const callerClass = (user: { isAdmin: boolean } | null): "anonymous" | "administrator" | "user" => (user === null ? "anonymous" : user.isAdmin ? "administrator" : "user");

/** The leaves a rule still asks. */
export function leavesOf(rule: Rule): Leaf[] {
  if (typeof rule === "boolean") return [];
  if (typeof rule === "string" || isLevel(rule)) return [rule];
  if ("not" in rule) return leavesOf(rule.not);
  return ("any" in rule ? rule.any : rule.all).flatMap(leavesOf);
}

/**
 * The record's fields its readers depend on (the tree's leaves about the record), and with `author` whether it
 * names its author (the declaration's `anonymous`): a change of one of them makes who may read it, or who is
 * shown as its author, be decided again (activity entries; a forum thread's replies, whose author reads them
 * only where the thread is, and whose own authors a thread's anonymity does not hide).
 */
export function readershipFieldsOf(declaration: RecordsDeclaration, { author = false }: { author?: boolean } = {}): string[] {
  const fields = new Set<string>();
  for (const leaf of leavesOf(policyOf(declaration).visible)) {
    if (leaf === "published") {
      fields.add(declaration.published.field);
      if (declaration.window) [declaration.window.up, declaration.window.down].forEach((field) => fields.add(field));
    } else if (isLevel(leaf)) {
      fields.add(declaration.accessField ?? "access");
    } else if (leaf === "own" && declaration.creator) {
      fields.add(declaration.creator);
    } else if ((leaf === "member" || leaf === "secluded" || leaf === "moderates") && declaration.scoped) {
      fields.add("scope");
      fields.add("scopeId");
    }
  }
  if (author && declaration.anonymous) fields.add(declaration.anonymous);
  return [...fields];
}

/**
 * An event's `visibility`: the class of caller that reads the record were it published — `public` when an
 * anonymous caller would, `registered` when a signed-in user who belongs nowhere would, `private` otherwise (only
 * some: its scope's members, its audience, administrators) — as SQL over the written row (`leafSql`: the level
 * and seclusion leaves over it). Whoever may read a record that is gone is decided from it (`goneKnows`).
 */
export function eventVisibilitySql(declaration: RecordsDeclaration, leafSql: (leaf: Leaf) => Prisma.Sql): Prisma.Sql {
  const readBy = (signedIn: boolean) =>
    fold(policyOf(declaration).visible, (leaf) => {
      if (leaf === "signedIn") return signedIn;
      if (leaf === "published") return true;
      if (leaf === "secluded" || isLevel(leaf)) return undefined;
      return false; // a nobody: no administrator, creator, member, moderator, or recipient
    });
  const cases: Prisma.Sql[] = [];
  const asked = new Set<string>();
  for (const [signedIn, visibility] of [[false, Prisma.raw("'public'")], [true, Prisma.raw("'registered'")]] as const) {
    const rule = readBy(signedIn);
    if (rule === true) return cases.length ? Prisma.sql`CASE ${Prisma.join(cases, " ")} ELSE ${visibility} END` : visibility;
    if (rule === false) continue;
    const condition = renderSql(rule, leafSql);
    // Where signing in adds nothing (no registered level), the first case has answered it already.
    const text = JSON.stringify([condition.sql, condition.values]);
    if (!asked.has(text)) cases.push(Prisma.sql`WHEN ${condition} THEN ${visibility}`);
    asked.add(text);
  }
  return cases.length ? Prisma.sql`CASE ${Prisma.join(cases, " ")} ELSE 'private' END` : Prisma.sql`'private'`;
}

/**
 * What an event tells of its record when the record is gone, as `fold` knows it: published or not as the event
 * says, and its `visibility` as the class of caller that read it (public: everyone; registered: signed-in users;
 * private: only some, its scope's members where it has one). `author`: the viewer is the record's author as the
 * event recorded them (`authorId`: its creator, where the creator rule held for them at the write, parent
 * included: D13), so the creator leaves are theirs; for anyone else they are false. Membership and moderation
 * are left for the database, about the event's scope (`asks`: whether the relation can be asked).
 */
export function goneKnows(
  event: { published: boolean; visibility: string },
  viewer: { signedIn: boolean; administrator: boolean; author?: boolean },
  asks: { member: boolean; moderates: boolean },
): Known {
  return (leaf) => {
    if (leaf === "administrator") return viewer.administrator;
    if (leaf === "signedIn") return viewer.signedIn;
    if (leaf === "own" || leaf === "parentReadable") return viewer.author === true;
    if (leaf === "published") return event.published;
    if (isLevel(leaf)) return leaf.level.includes(event.visibility as AccessLevelName);
    // A scope secluded from outsiders made its record's event private: its members still read it, as members
    // now (the scope's own record may be gone with it: then nobody is).
    if (leaf === "secluded") return event.visibility === "private" ? (viewer.signedIn && asks.member ? { not: "member" } : true) : false;
    if (leaf === "member") return viewer.signedIn && asks.member ? undefined : false;
    if (leaf === "moderates") return viewer.signedIn && asks.moderates ? undefined : false;
    return false;
  };
}
