/**
 * A metric label whose values come from clients (GraphQL operation names, error paths): each distinct value is
 * a time series kept for the life of the process, so the first `max` values get their own and every later one
 * is counted as `overflow`.
 */
export function boundedLabel(max: number, overflow: string): (value: string) => string {
  const seen = new Set<string>();
  return (value) => {
    if (seen.has(value)) return value;
    if (seen.size >= max) return overflow;
    seen.add(value);
    return value;
  };
}
