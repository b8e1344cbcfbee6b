import { describe, expect, it } from "vitest";
import "../src/areas.js";
import type { AccessLevelName } from "../src/common/access.js";
import { declaredRecords } from "../src/common/records.js";
import { fold, leavesOf, policyOf, type Leaf, type Rule } from "../src/common/policy.js";
import { caseOf, casesOf, countingOf } from "../src/common/policy-counting.js";

/**
 * The policy kit's own algebra (src/common/policy.ts), over every declared record kind's tree: whatever an
 * interpreter knows and folds away, what is left must answer as the whole tree does; the cases a total splits
 * on must be the tree under each answer; and what the counters count must be exactly the rows the tree admits.
 * Each interpreter (rows, events, deletions, totals) relies on these, so a wrong simplification would show
 * here for every area at once, with the assignment that breaks it.
 */

const LEVELS: readonly AccessLevelName[] = ["public", "registered", "private"];
const NAMED: readonly Exclude<Leaf, { level: unknown }>[] = ["administrator", "signedIn", "own", "parentReadable", "moderates", "hears", "published", "member", "secluded"];

/** One world: every named leaf true or false, and the record's level. */
type World = { leaves: Map<string, boolean>; level: AccessLevelName };

const holds = (leaf: Leaf, world: World) => (typeof leaf === "object" ? leaf.level.includes(world.level) : world.leaves.get(leaf)!);

function evaluate(rule: Rule, world: World): boolean {
  if (typeof rule === "boolean") return rule;
  if (typeof rule === "string" || "level" in rule) return holds(rule, world);
  if ("not" in rule) return !evaluate(rule.not, world);
  if ("any" in rule) return rule.any.some((part) => evaluate(part, world));
  return rule.all.every((part) => evaluate(part, world));
}

/** Every world over the named leaves the rule asks (others false) and the three levels. */
function* worlds(rule: Rule): Generator<World> {
  const asked = [...new Set(leavesOf(rule).filter((leaf): leaf is (typeof NAMED)[number] => typeof leaf === "string"))];
  for (let bits = 0; bits < 2 ** asked.length; bits++) {
    for (const level of LEVELS) {
      yield { leaves: new Map(NAMED.map((leaf) => [leaf, asked.includes(leaf) && (bits & (1 << asked.indexOf(leaf))) !== 0])), level };
    }
  }
}

const declarations = declaredRecords().map((declaration) => ({ name: declaration.model, rule: policyOf(declaration).visible }));

describe("the policy kit's algebra, over every declared record kind's tree", () => {
  it("covers every declared record kind", () => {
    expect(declarations.length).toBeGreaterThanOrEqual(10);
  });

  for (const { name, rule } of declarations) {
    it(`${name}: folding any known leaves leaves a rule that answers as the whole tree, in every world`, () => {
      const asked = [...new Set(leavesOf(rule).filter((leaf): leaf is (typeof NAMED)[number] => typeof leaf === "string"))];
      const wrong: string[] = [];
      for (const world of worlds(rule)) {
        const whole = evaluate(rule, world);
        // Every subset of the asked leaves known (as in the world), the rest left.
        for (let known = 0; known < 2 ** asked.length; known++) {
          const folded = fold(rule, (leaf) => (typeof leaf === "string" && asked.includes(leaf) && (known & (1 << asked.indexOf(leaf))) !== 0 ? world.leaves.get(leaf) : undefined));
          if (evaluate(folded, world) !== whole && wrong.length < 3) wrong.push(`${JSON.stringify([...world.leaves])} at ${world.level}, known ${known.toString(2)}: ${JSON.stringify(folded)}`);
        }
        // A leaf known as another rule (a gone record's seclusion: not a member) folds as that rule.
        const substituted = fold(rule, (leaf) => (leaf === "secluded" ? { not: "member" } : undefined));
        const asSubstituted = { ...world, leaves: new Map(world.leaves).set("secluded", !world.leaves.get("member")) };
        expect(evaluate(substituted, world)).toBe(evaluate(rule, asSubstituted));
      }
      expect(wrong, `${name}: folded rules that answer otherwise than the tree`).toEqual([]);
    });

    it(`${name}: the cases a total splits on are the tree under each answer, and the counters count exactly the rows each admits`, () => {
      const once: Leaf[] = ["moderates", "secluded", "member"];
      for (const viewer of [
        { administrator: false, signedIn: false },
        { administrator: false, signedIn: true },
        { administrator: true, signedIn: true },
      ]) {
        for (const own of [false, true]) {
          const knownRule = fold(rule, (leaf) =>
            leaf === "administrator" ? viewer.administrator : leaf === "signedIn" ? viewer.signedIn : leaf === "own" ? own : leaf === "hears" ? false : undefined,
          );
          const cases = casesOf(knownRule, once);
          for (const world of worlds(knownRule)) {
            const chosen = caseOf(cases, (leaf) => world.leaves.get(leaf as string)!);
            expect(evaluate(chosen, world), `${name}: case ${JSON.stringify(chosen)}`).toBe(evaluate(knownRule, world));
            // The counters: a case with only row facts left (published, levels; parentReadable is counted from rows).
            if (leavesOf(chosen).some((leaf) => leaf === "parentReadable")) continue;
            const counting = countingOf(chosen, []);
            const counted = "every" in counting ? true : "none" in counting ? false : world.leaves.get("published")! && (counting.levels === null || counting.levels.includes(world.level));
            expect(counted, `${name}: counting ${JSON.stringify(counting)} of ${JSON.stringify(chosen)} in ${JSON.stringify([...world.leaves])} at ${world.level}`).toBe(evaluate(chosen, world));
          }
        }
      }
    });
  }

  it("what only a row tells (isScope's membership) is the counters' remainder: counted rows and the remainder never overlap and together are what the rule admits", () => {
    const groups = declaredRecords().find((declaration) => declaration.isScope)!;
    const rule = fold(policyOf(groups).visible, (leaf) => (leaf === "administrator" ? false : leaf === "signedIn" ? true : leaf === "own" ? false : undefined));
    const counting = countingOf(rule, ["member"]);
    if (!("levels" in counting)) throw new Error(`expected levels and a remainder, got ${JSON.stringify(counting)}`);
    expect(counting.rest).not.toBeNull();
    for (const world of worlds(rule)) {
      const byCounters = world.leaves.get("published")! && (counting.levels === null || counting.levels.includes(world.level));
      const byRows = world.leaves.get("published")! && evaluate(counting.rest!, world);
      expect(byCounters && byRows).toBe(false);
      expect(byCounters || byRows).toBe(evaluate(rule, world));
    }
  });
});
