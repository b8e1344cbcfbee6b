import { accessLevels, namedNumbers } from "../common/access.js";
import { records } from "../common/records.js";
import { HIDDEN } from "./scope.js";

/**
 * A group's discoverability, as the records kit's access levels (stored in `discoverability`, the
 * original's numbers): visible groups are public, hidden ones private to their members. REST shows and
 * takes the names, and the numbers too (docs/decisions.md, "Groups").
 */
export const GROUP_DISCOVERABILITY = accessLevels(
  "GroupDiscoverability",
  [
    { value: 0, level: "public", graphqlName: "VISIBLE", label: "visible" },
    { value: HIDDEN, level: "private", graphqlName: "HIDDEN", label: "hidden" },
  ],
  0,
  { restNames: true },
);

/** How people become members (the original's numbers and names), declared once. */
const JOIN_POLICIES = [
  { value: 0, label: "open" },
  { value: 1, label: "restricted" },
  { value: 2, label: "invite_only" },
  { value: 3, label: "closed" },
] as const;

export const GROUP_JOIN_POLICY = namedNumbers("GroupJoinPolicy", JOIN_POLICIES, 0, { restNames: true });

export type JoinPolicy = (typeof JOIN_POLICIES)[number]["label"];

/** The policy a stored number means (the membership rules ask by name, never by number). */
export function joinPolicyOf(value: number): JoinPolicy {
  const entry = JOIN_POLICIES.find((candidate) => candidate.value === value);
  if (!entry) throw new Error(`GroupJoinPolicy: ${value} is not a join policy`);
  return entry.label;
}

/**
 * Groups and who sees them — THE rule (identity.ts asks it too): administrators all; everyone visible
 * groups; a hidden group its members, in lists and totals, and its members and invitees when read (the group
 * scope kind's members and readers: a group is a scope). Managers change and delete their group (besides
 * administrators). Groups have no creator rule (a creator who left a hidden group no longer sees it).
 */
export const GROUPS = records({
  model: "Group",
  scoped: false,
  // Each group is the scope `group` of its own id (src/groups/scope.ts): its events are in it, so a hidden
  // group's are its members'.
  isScope: "group",
  published: { field: "published", value: 1 },
  access: GROUP_DISCOVERABILITY,
  accessField: "discoverability",
  // The private description: to the group's members (managers are members) and administrators.
  privateFields: { fields: ["privateDescription"], shownTo: "members" },
});
