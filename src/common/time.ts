/** REST timestamps are `YYYY-MM-DD HH:mm:ss` in UTC (the API document's format). */
export const REST_TIMESTAMP_PATTERN = "^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$";

/**
 * A date as a REST timestamp (REST_TIMESTAMP_PATTERN). The usual input is what the GraphQL DateTime
 * scalar answers — a Date (graphql-scalars) or its `toISOString` text, `2024-05-01T10:00:00.123Z`; a list
 * page holds 50–75 of them — cut out of the ISO text directly, without another Date or a replace.
 */
export function restTimestamp(value: Date | string): string {
  const iso = value instanceof Date ? value.toISOString() : value;
  if (iso.length === 24 && iso.charCodeAt(10) === 84 /* T */ && iso.charCodeAt(23) === 90 /* Z */) {
    return `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
  }
  return new Date(value).toISOString().slice(0, 19).replace("T", " ");
}

const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?)?(Z|[+-]\d{2}:?\d{2})?$/;

/** The years a timestamp may fall in: PostgreSQL and ISO-8601 both handle these four-digit years. */
export const isStorableDate = (date: Date) => {
  const year = date.getUTCFullYear();
  return !Number.isNaN(date.getTime()) && year >= 1 && year <= 9999;
};

/**
 * Reads a REST or ISO-8601 timestamp (zone-less values are UTC). Null when it is not a real date and
 * time (month 13, 30 February, hour 24, offset +25:00) or falls outside the years 1 to 9999.
 */
export function parseTimestamp(value: string): Date | null {
  const match = TIMESTAMP.exec(value.trim());
  if (!match) return null;
  const [year, month, day, hour = 0, minute = 0, second = 0] = match.slice(1, 7).map((part) => Number(part ?? 0));
  const millis = Number((match[7] ?? "0").padEnd(3, "0").slice(0, 3));
  const zone = match[8];
  const daysInMonth = new Date(Date.UTC(year!, month!, 0)).getUTCDate();
  if (month! < 1 || month! > 12 || day! < 1 || day! > daysInMonth || hour > 23 || minute > 59 || second > 59) return null;
  let offsetMinutes = 0;
  if (zone && zone !== "Z") {
    const [, sign, hours, minutes] = /^([+-])(\d{2}):?(\d{2})$/.exec(zone)!;
    if (Number(hours) > 23 || Number(minutes) > 59) return null;
    offsetMinutes = (sign === "-" ? -1 : 1) * (Number(hours) * 60 + Number(minutes));
  }
  const date = new Date(Date.UTC(year!, month! - 1, day!, hour, minute, second, millis) - offsetMinutes * 60_000);
  // Date.UTC maps years 0-99 to 1900-1999.
  if (year! < 100) date.setUTCFullYear(date.getUTCFullYear() - 1900);
  return isStorableDate(date) ? date : null;
}
