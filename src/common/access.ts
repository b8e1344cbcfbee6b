import { z } from "zod";

/** The contract's three access levels; each area numbers them its own way. */
export type AccessLevelName = "public" | "registered" | "private";

/**
 * Values stored as documented numbers, shown as a GraphQL enum whose internal values are those numbers
 * (access levels; a group's join policy). REST carries the numbers, or, with `restNames`, the labels (`open`)
 * and takes either (rest-facade/enums.ts).
 */
export interface NumberedEnum {
  /** GraphQL enum name, e.g. `WikiAccess`. */
  readonly enumName: string;
  /** Each documented number, its label (REST's name when `restNames`) and GraphQL name, in the documented order. */
  readonly levels: ReadonlyArray<{ value: number; label: string; graphqlName: string }>;
  /** The documented default. */
  readonly fallback: number;
  /** `0 open, 1 restricted.` — for GraphQL, REST rows and error messages. */
  readonly description: string;
  /** Validates one of the documented numbers. */
  readonly schema: z.ZodType<number>;
  /** REST shows the labels and takes labels or numbers (a group's `join_policy`: `open` or 0); absent: numbers only. */
  readonly restNames?: boolean;
}

/**
 * Named numbers that are not access levels (a group's join policy: 0 open, 1 restricted, …), declared once
 * as `accessLevels` declares levels; GraphQL names are the labels upper-cased.
 */
export function namedNumbers(enumName: string, entries: ReadonlyArray<{ value: number; label: string }>, fallback: number, options: { restNames?: boolean } = {}): NumberedEnum {
  const levels = entries.map(({ value, label }) => ({ value, label, graphqlName: label.toUpperCase() }));
  const description = `${levels.map((entry) => `${entry.value} ${entry.label}`).join(", ")}.`;
  const numbers = levels.map((entry) => entry.value);
  return {
    enumName,
    levels,
    fallback,
    description,
    restNames: options.restNames,
    schema: z.number().refine((value) => numbers.includes(value), `must be ${description.replace(/\.$/, "").replace(/, (?=[^,]*$)/, " or ")}`),
  };
}

export interface AccessLevels extends NumberedEnum {
  /** Documented number → level, in the documented order (e.g. wiki 0 public, 1 registered, 4 private). */
  readonly levels: ReadonlyArray<{ value: number; name: AccessLevelName; label: string; graphqlName: string }>;
  /** The numbers that mean `level`. */
  valuesOf(level: AccessLevelName): number[];
  /** The level a stored number means. */
  levelOf(value: number): AccessLevelName;
}

const LABELS: Record<AccessLevelName, string> = { public: "public", registered: "registered users", private: "private" };

/**
 * One area's numbering of the access levels, declared once: the validation schema, the description,
 * the visibility rule (src/common/visibility.ts) and the GraphQL enum (src/graphql/access.ts) use it. REST keeps the
 * documented numbers; GraphQL shows the enum, whose internal values are those numbers.
 *
 * `levels` lists each documented number in order; several numbers may mean one level (the blog's
 * 0, "not set", is public as 1 is) — give the extra ones a `graphqlName` of their own.
 */
export function accessLevels(
  enumName: string,
  levels: ReadonlyArray<{ value: number; level: AccessLevelName; graphqlName?: string; label?: string }>,
  fallback: number,
  options: { restNames?: boolean } = {},
): AccessLevels {
  const entries = levels.map(({ value, level, graphqlName, label }) => ({
    value,
    name: level,
    label: label ?? LABELS[level],
    graphqlName: graphqlName ?? level.toUpperCase(),
  }));
  const valuesOf = (level: AccessLevelName) => entries.filter((entry) => entry.name === level).map((entry) => entry.value);
  const description = `${entries.map((entry) => `${entry.value} ${entry.label}`).join(", ")}.`;
  const numbers = entries.map((entry) => entry.value);
  return {
    enumName,
    levels: entries,
    fallback,
    valuesOf,
    levelOf(value) {
      const entry = entries.find((candidate) => candidate.value === value);
      if (!entry) throw new Error(`${enumName}: ${value} is not a documented access level`);
      return entry.name;
    },
    description,
    restNames: options.restNames,
    schema: z.number().refine((value) => numbers.includes(value), `must be ${description.replace(/\.$/, "").replace(/, (?=[^,]*$)/, " or ")}`),
  };
}

/** The documented publishing states of wiki pages and blog entries (forum posts too): 0 unpublished, 1 published. */
export const PUBLISH_STATE = {
  description: "0 unpublished, 1 published.",
  schema: z.union([z.literal(0), z.literal(1)], "must be 0 (unpublished) or 1 (published)"),
} as const;

/** How an area's access-level default reads in GraphQL input descriptions (`Default PUBLIC.`). */
export const describeAccessDefault = (levels: AccessLevels) =>
  `Default ${levels.levels.find((level) => level.value === levels.fallback)!.graphqlName} (${levels.fallback}).`;
