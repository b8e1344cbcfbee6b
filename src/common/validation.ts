import { z } from "zod";
import { ApiError, badInput } from "./errors.js";
import { isStorableDate } from "./time.js";

/**
 * Parses service input with a zod schema. Every issue becomes a 400 naming the input field (its path,
 * dot-joined), so GraphQL and REST callers learn exactly which parameter was wrong.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => ({
    parameter: issue.path.map(String).join(".") || "input",
    message: issue.message,
  }));
  const first = problems[0]!;
  throw new ApiError(400, `Invalid parameter "${first.parameter}": ${first.message}`, problems);
}

/**
 * An update that names no field (an empty PATCH): the service answers the record without writing it, so
 * nothing changes, not even its modified time. Authorization is checked before, as for any update.
 */
export const changesNothing = (input: object): boolean => Object.values(input).every((value) => value === undefined);

/** Integer ids arrive as GraphQL IDs (strings); anything that is not a positive integer cannot exist. */
export function parseId(value: string | number, parameter = "id"): number {
  const id = typeof value === "number" ? value : /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(id) || id < 1 || id > 2147483647) {
    throw new ApiError(400, `Invalid parameter "${parameter}": must be a positive integer`, [
      { parameter, message: "must be a positive integer" },
    ]);
  }
  return id;
}

/** What a service accepts before validation: the schema's fields, with any values (zod checks them). */
export type RawInput<S extends z.ZodObject> = { [K in keyof z.input<S>]?: unknown };

/** A date and time that PostgreSQL and ISO-8601 can both hold. */
/** A 0/1 flag (the API's integers for booleans), refused with `message` (400 naming the field). */
export const zeroOrOne = (message: string) => z.union([z.literal(0), z.literal(1)], message);

/** 0 or a record's id, as a filter takes it (0: any). */
export const idOrZero = z.number().int().min(0, "must be a non-negative integer").max(2_147_483_647, "must be a non-negative integer");

export const timestamp = z.date().refine(isStorableDate, "must be a date between the years 1 and 9999");

/**
 * A publishing window must end after it starts (blog entries, announcements): 400 naming `publishDown`
 * (the original answered 422 for publish_up after publish_down). No end is an open window.
 */
export function assertPublishingWindow(publishUp: Date, publishDown: Date | null | undefined): void {
  if (publishDown && publishDown.getTime() <= publishUp.getTime()) throw badInput("publishDown", "must be after publish_up");
}
