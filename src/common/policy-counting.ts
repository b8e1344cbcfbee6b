import { Prisma } from "../generated/prisma/client.js";
import type { AccessLevelName } from "./access.js";
import { fold, isLevel, leavesOf, type Leaf, type Rule } from "./policy.js";

// ---------------------------------------------------------------------------------------------------
// Totals: the rule as the counters read it (src/common/counted-totals.ts, countedTotal; src/common/cached-totals.ts).

/**
 * The rule split on leaves a total decides once for the whole statement (about a list's scope, not about a row:
 * whether the caller moderates it, belongs to it, is secluded from it): each case is the rule left over a row's
 * facts, which the counters hold (published, level) or rows are counted for.
 */
export type Cases = Rule | { when: Leaf; then: Cases; else: Cases };

export function casesOf(rule: Rule, decidedOnce: readonly Leaf[]): Cases {
  const asked = leavesOf(rule);
  const leaf = decidedOnce.find((candidate) => asked.includes(candidate));
  if (!leaf) return rule;
  const rest = decidedOnce.filter((candidate) => candidate !== leaf);
  const then = casesOf(fold(rule, (other) => (other === leaf ? true : undefined)), rest);
  const otherwise = casesOf(fold(rule, (other) => (other === leaf ? false : undefined)), rest);
  return JSON.stringify(then) === JSON.stringify(otherwise) ? then : { when: leaf, then, else: otherwise };
}

/** Each case of `cases` as `each` renders it, chosen by the once-decided leaves (`leafSql`). */
export function renderCases(cases: Cases, leafSql: (leaf: Leaf) => Prisma.Sql, each: (rule: Rule) => Prisma.Sql): Prisma.Sql {
  if (typeof cases === "object" && "when" in cases) {
    return Prisma.sql`(CASE WHEN ${leafSql(cases.when)} THEN ${renderCases(cases.then, leafSql, each)} ELSE ${renderCases(cases.else, leafSql, each)} END)`;
  }
  return each(cases);
}

/** The case of `cases` that holds, the once-decided leaves answered by `decided`. */
export function caseOf(cases: Cases, decided: (leaf: Leaf) => boolean): Rule {
  while (typeof cases === "object" && "when" in cases) cases = decided(cases.when) ? cases.then : cases.else;
  return cases;
}

/**
 * How a total counts the rows a case admits, by what the counters know of a row (published, level): `every`
 * row, `none`, or the published ones at `levels` (null: every level). `rest`: what the counters cannot tell
 * (a leaf only a row answers, as membership of a record that is a scope, `isScope`), counted from the rows: the case holds there and
 * `levels` does not. A case that admits unpublished rows only some of the time is not one a counter can
 * serve, and is refused.
 */
export type Counting = { every: true } | { none: true } | { levels: readonly AccessLevelName[] | null; rest: Rule | null };

export function countingOf(rule: Rule, perRow: readonly Leaf[]): Counting {
  if (rule === true) return { every: true };
  if (rule === false) return { none: true };
  if (fold(rule, (leaf) => (leaf === "published" ? false : undefined)) !== false) {
    throw new Error(`a total counts every row or published rows only; this rule admits unpublished rows only some of the time: ${JSON.stringify(rule)}`);
  }
  const shown = fold(rule, (leaf) => (leaf === "published" ? true : undefined));
  const counted = fold(shown, (leaf) => (perRow.includes(leaf) ? false : undefined));
  const rest = counted === shown ? null : restOf(shown, counted, perRow);
  if (counted === true) return { levels: null, rest };
  if (counted === false) return { levels: [], rest };
  if (isLevel(counted)) return { levels: counted.level, rest };
  throw new Error(`the counters hold a row's publishing and level only; this rule asks more: ${JSON.stringify(counted)}`);
}

/**
 * The rows `shown` admits and `counted` does not, for the counters' remainder: where one leaf only a row answers
 * is all the difference, that leaf and the levels it adds (`id IN (…) AND access IN (private)`, conditions an index
 * can be led by), else the plain difference.
 */
function restOf(shown: Rule, counted: Rule, perRow: readonly Leaf[]): Rule {
  const [leaf] = perRow.filter((candidate) => leavesOf(shown).includes(candidate));
  if (leaf && perRow.filter((candidate) => leavesOf(shown).includes(candidate)).length === 1) {
    const granted = fold(shown, (other) => (other === leaf ? true : undefined));
    const levelsOf = (rule: Rule) => (rule === false ? [] : isLevel(rule) ? rule.level : null);
    const [more, less] = [levelsOf(granted), levelsOf(counted)];
    if (more && less) {
      const added = more.filter((level) => !less.includes(level));
      return added.length ? { all: [{ level: added }, leaf] } : false;
    }
  }
  return counted === false ? shown : { all: [shown, { not: counted }] };
}
