/**
 * Measuring client-supplied JSON without trusting its shape. Every walk here is iterative (an explicit
 * stack, never recursion, never `Math.max(...children)`) and stops as soon as the answer is known, so a
 * value nested 100,000 deep or holding a million elements costs bounded time and no call stack.
 */

type Container = Record<string, unknown> | unknown[];

const isContainer = (value: unknown): value is Container => typeof value === "object" && value !== null;

/**
 * Nesting depth of a JSON value (a scalar is 0, `{}` and `[]` are 1, `{"a":[1]}` is 2), counted up to
 * `limit + 1`: anything deeper answers `limit + 1`, so `jsonDepth(value, 8) <= 8` is the bounds check.
 */
export function jsonDepth(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (!isContainer(node)) continue;
    const here = depth + 1;
    if (here > limit) return limit + 1;
    if (here > deepest) deepest = here;
    for (const child of Object.values(node)) if (isContainer(child)) stack.push([child, here]);
  }
  return deepest;
}

/**
 * Length of `JSON.stringify(value)` for plain JSON data, counted up to `limit + 1` without building the
 * string: anything longer answers `limit + 1`, so `jsonLength(value, 16_384) <= 16_384` is the bounds check.
 */
export function jsonLength(value: unknown, limit: number): number {
  let length = 0;
  const stack: unknown[] = [value];
  while (stack.length) {
    const node = stack.pop();
    if (Array.isArray(node)) {
      // "[" "]" and a comma between elements; undefined and functions stringify as null inside arrays.
      length += 2 + Math.max(0, node.length - 1);
      for (const element of node) stack.push(element === undefined || typeof element === "function" ? null : element);
    } else if (isContainer(node)) {
      const entries = Object.entries(node).filter(([, child]) => child !== undefined && typeof child !== "function");
      length += 2 + Math.max(0, entries.length - 1);
      for (const [key, child] of entries) {
        length += JSON.stringify(key).length + 1;
        stack.push(child);
      }
    } else {
      length += scalarLength(node);
    }
    if (length > limit) return limit + 1;
  }
  return length;
}

function scalarLength(value: unknown): number {
  if (typeof value === "string") return JSON.stringify(value).length;
  if (typeof value === "number") return Number.isFinite(value) ? String(value).length : 4;
  if (typeof value === "boolean") return value ? 4 : 5;
  if (typeof value === "bigint") return String(value).length;
  return 4; // null
}

/** A UTF-16 surrogate that is not half of a pair: in `u` mode a well-formed pair is one code point, not Cs. */
const LONE_SURROGATE = /\p{Cs}/u;

/** False for text holding a lone UTF-16 surrogate (e.g. JSON "\ud800"), which UTF-8 and PostgreSQL cannot hold. */
export const isWellFormedText = (text: string) => !LONE_SURROGATE.test(text);

/**
 * The path (`params.mode`, `tags.1`) of the first string in `value` that is not well-formed Unicode, or
 * null when there is none. A key that is not well-formed is reported at its container's path (the key
 * is not a parameter of its own). Callers refuse such input naming the path.
 */
export function illFormedTextPath(value: unknown, prefix = ""): string | null {
  const stack: [unknown, string][] = [[value, prefix]];
  while (stack.length) {
    const [node, path] = stack.pop()!;
    if (typeof node === "string") {
      if (!isWellFormedText(node)) return path;
      continue;
    }
    if (!isContainer(node)) continue;
    const entries = Object.entries(node);
    if (entries.some(([key]) => !isWellFormedText(key))) return path;
    // Pushed in reverse so entries are visited in document order.
    for (let index = entries.length - 1; index >= 0; index--) {
      const [key, child] = entries[index]!;
      if (typeof child === "string" || isContainer(child)) stack.push([child, path ? `${path}.${key}` : key]);
    }
  }
  return null;
}
