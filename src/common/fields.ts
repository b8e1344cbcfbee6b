import { z } from "zod";
import { PUBLISH_STATE, describeAccessDefault, type AccessLevels, type NumberedEnum } from "./access.js";
import { timestamp } from "./validation.js";
import type { ParamType, RestParam } from "./rest-vocabulary.js";

/**
 * An area's field table: each field of its create and update inputs declared ONCE, and from that one
 * declaration
 * - the zod rules its service parses with (`table.create`, `table.update`: update is partial, every field
 *   optional and nullable),
 * - the GraphQL input types (`tableInput`, src/graphql/fields.ts),
 * - the Prisma fields its statements write (`columnValues`),
 * - the REST parameters of its facade rows (`fieldParams`, rest-facade/field-params.ts).
 * `testing.documented` (src/<area>/testing.ts) stays the hand transcription of the API document, and
 * rest-facade/table.test.ts holds the table to it.
 */

/** A field's GraphQL input type; access levels are their area's enum (src/graphql/access.ts). */
export type InputType = "String" | "Int" | "Boolean" | "DateTime" | "JSON" | "[String]" | NumberedEnum;
export type FieldMode = "create" | "update";
/** Text, or a function giving it when read (descriptions listing what other modules register). */
export type Text = string | (() => string);
/** One text for both inputs, or one per input (absent: none). */
export type Described = Text | { create?: Text; update?: Text };

export interface FieldDeclaration {
  type: InputType;
  /** The rule a given value must meet (zod); absent and null values are the table's business. */
  rule: z.ZodType;
  /** Required in the create input, and in REST PUT too unless "create" (then PUT may leave it out). */
  required?: boolean | "create";
  /** The field exists in one input only. */
  only?: FieldMode;
  /** The GraphQL input field's description. */
  description?: Described;
  /**
   * The documented default: the REST parameter's, and what a create stores for an absent or null value.
   * `"now"` is the write's time, applied by the statement (or the service), never sent by the facade.
   */
  default?: string | number | boolean;
  /** The Prisma field written (default: the field's own name); false: the service writes it itself. */
  column?: string | false;
  /** The value as the column stores it (citations keep authors as "A; B"). */
  store?: (value: never) => unknown;
  /** Present: a null value stores this (an update clears the field). Absent: null keeps the stored value (a create stores the default). */
  clearedTo?: unknown;
  /** Its REST parameter (default: one named in snake_case, typed after `type`); false: none. */
  rest?: false | RestDeclaration;
}

export interface RestDeclaration {
  /** Default: the field's name in snake_case (`scopeId` → `scope_id`). */
  name?: string;
  /** Default: the GraphQL description (the create input's). */
  description?: Text;
  /** Default: after the GraphQL type (String → string, Int and access levels → integer, Boolean → boolean, DateTime → string as timestamp, JSON → array as map, [String] → array). */
  type?: ParamType;
  format?: RestParam["format"];
  privacy?: boolean;
  clears?: boolean;
  /** Other names a request may give it by (activity's documented `crated_by`: also `created_by`), read when the name is absent. */
  alsoNamed?: readonly string[];
}

export type FieldTable = Record<string, FieldDeclaration>;

type Nullish<R extends z.ZodType> = z.ZodOptional<z.ZodNullable<R>>;
type CreateShape<T extends FieldTable> = {
  [K in keyof T as T[K] extends { only: "update" } ? never : K]: T[K] extends { required: true | "create" } ? T[K]["rule"] : Nullish<T[K]["rule"]>;
};
type UpdateShape<T extends FieldTable> = { [K in keyof T as T[K] extends { only: "create" } ? never : K]: Nullish<T[K]["rule"]> };

export interface Fields<T extends FieldTable> {
  readonly fields: T;
  /** The create input's rules: required fields as declared, the others optional and nullable. */
  readonly create: z.ZodObject<CreateShape<T>>;
  /** The update input's rules: every field optional and nullable (a partial update). */
  readonly update: z.ZodObject<UpdateShape<T>>;
}

/** Any area's field table, as the kit's helpers read it. */
export type AnyFields = { readonly fields: FieldTable };

/** The fields one input takes, in the table's order. */
export function fieldsOf(table: AnyFields, mode: FieldMode): [string, FieldDeclaration][] {
  return Object.entries(table.fields).filter(([, field]) => field.only === undefined || field.only === mode);
}

/** Declares an area's field table (see above). */
export function fieldTable<const T extends FieldTable>(fields: T): Fields<T> {
  const table: AnyFields = { fields };
  const shape = (mode: FieldMode) =>
    Object.fromEntries(
      fieldsOf(table, mode).map(([name, field]) => [name, mode === "create" && field.required ? field.rule : field.rule.nullable().optional()]),
    );
  return { fields, create: z.object(shape("create")), update: z.object(shape("update")) } as unknown as Fields<T>;
}

/** A text as it reads now. */
export const textOf = (text: Text | undefined): string | undefined => (typeof text === "function" ? text() : text);

/** The description one input gives a field. */
export function describedFor(described: Described | undefined, mode: FieldMode): string | undefined {
  if (described === undefined || typeof described === "string" || typeof described === "function") return textOf(described);
  return textOf(described[mode]);
}

/**
 * The Prisma fields a parsed input writes, by the table: renamed (`column`), stored (`store`). A create
 * stores the documented default for an absent or null value (`"now"` and no default: the column's own,
 * the statement's time for `created`); an update leaves absent fields as they are, and null ones too
 * unless the field clears (`clearedTo`). Fields the service writes itself (`column: false`) are left out.
 */
export function columnValues(table: AnyFields, data: Record<string, unknown>, mode: FieldMode): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [name, field] of fieldsOf(table, mode)) {
    if (field.column === false) continue;
    const given = data[name];
    let value: unknown;
    if (given === null && "clearedTo" in field) value = field.clearedTo;
    else if (given != null) value = field.store ? field.store(given as never) : given;
    else if (mode === "create" && field.default !== undefined && field.default !== "now") value = field.default;
    values[field.column ?? name] = value;
  }
  return values;
}

/** camelCase → snake_case, the REST spelling of a field (`allowComments` → `allow_comments`). */
export const restName = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

// ---------------------------------------------------------------------------------------------------
// Fields several areas share, declared once here.

/** When the record was created; absent: the write's time. */
/**
 * A record's creation time may lie in the past (imports) but not ahead of now (a minute of clock skew
 * allowed): a record dated ahead would head every list and feed sorted by creation, for as long as it liked.
 */
const createdTimestamp = timestamp.refine((date) => date.getTime() <= Date.now() + 60_000, "must not be in the future");

export const createdField = {
  type: "DateTime",
  rule: createdTimestamp,
  default: "now",
  rest: { description: "Created timestamp." },
} as const satisfies FieldDeclaration;

/** The creator, resolved by the service (`resolveCreator`): 0 or absent is the caller. */
export const createdByField = {
  type: "Int",
  rule: z.number().int().min(0),
  description: "0 or absent: the caller. Another user: administrators only.",
  default: 0,
  column: "createdById",
  rest: { description: "User ID of the creator (0: the caller)." },
} as const satisfies FieldDeclaration;

/** The documented publishing state, 0 unpublished (the default) or 1 published. */
export const stateField = {
  type: "Int",
  rule: PUBLISH_STATE.schema,
  description: `${PUBLISH_STATE.description} Default 0.`,
  default: 0,
  rest: { description: PUBLISH_STATE.description },
} as const satisfies FieldDeclaration;

/** The area's access level: its enum in GraphQL, the documented number in REST; a privacy parameter. */
export const accessField = (levels: AccessLevels) =>
  ({
    type: levels,
    rule: levels.schema,
    description: describeAccessDefault(levels),
    default: levels.fallback,
    rest: { description: levels.description, privacy: true },
  }) as const satisfies FieldDeclaration;

const MAX_TAG_LENGTH = 100;

/** Trimmed, without empty entries, and each tag once (the first spelling wins, compared case-insensitively). */
function distinctTags(tags: string[]): string[] {
  const seen = new Set<string>();
  const kept: string[] = [];
  for (const raw of tags) {
    const tag = raw.trim();
    const key = tag.toLowerCase();
    if (!tag || seen.has(key)) continue;
    seen.add(key);
    kept.push(tag);
  }
  return kept;
}

/** Tags: a list in GraphQL, a comma-separated string in REST (blog entries, groups). */
export const tagsField = {
  type: "[String]",
  // Checked on the whole list, so the problem names `tags` rather than `tags.<index>`.
  rule: z
    .array(z.string(), "must be a list of strings")
    .transform(distinctTags)
    .refine((tags) => tags.every((tag) => tag.length <= MAX_TAG_LENGTH), `each tag must be at most ${MAX_TAG_LENGTH} characters`),
  description: "Trimmed; empty and repeated (case-insensitive) tags are dropped.",
  rest: { type: "string", format: "list", description: "Comma-separated list of tags." },
} as const satisfies FieldDeclaration;
