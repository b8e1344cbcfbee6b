/** REST timestamps are `YYYY-MM-DD HH:mm:ss` in UTC (the API document's format). */
export function restTimestamp(value: Date | string): string {
  return new Date(value).toISOString().slice(0, 19).replace("T", " ");
}

const REST_FORMAT = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$/;

/** Reads a REST or ISO-8601 timestamp (zone-less values are UTC); null when it is not a real date and time. */
export function parseTimestamp(value: string): Date | null {
  const match = REST_FORMAT.exec(value.trim());
  if (!match) return null;
  const [, y, mo, d, h = "00", mi = "00", s = "00", zone] = match;
  const iso = `${y}-${mo}-${d}T${h}:${mi}:${s}${zone ? (zone === "Z" ? "Z" : zone.replace(/(\d{2})(\d{2})$/, "$1:$2")) : "Z"}`;
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return null;
  // Reject roll-overs such as 2024-02-30.
  if (!zone && date.toISOString().slice(0, 10) !== `${y}-${mo}-${d}`) return null;
  return date;
}
