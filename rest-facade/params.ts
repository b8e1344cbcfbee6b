import type { ParameterProblem } from "../src/common/errors.js";
import { parseTimestamp } from "../src/common/time.js";
import type { RestParam } from "../src/common/rest-vocabulary.js";

/** The response header that lists the parameters a request sent and the operation does not read (contract, "Parameters"; router.ts). */
export const IGNORED_PARAMETERS_HEADER = "X-Ignored-Parameters";

const TRUE = new Set(["true", "1", "yes", "on"]);
const FALSE = new Set(["false", "0", "no", "off"]);
const INT32_MAX = 2147483647;

type Coerced = { ok: true; value: unknown } | { ok: false; message: string };

function asInteger(raw: unknown): Coerced {
  const value = typeof raw === "string" && /^\s*-?\d+\s*$/.test(raw) ? Number(raw) : raw;
  if (typeof value !== "number" || !Number.isInteger(value)) return { ok: false, message: "must be an integer" };
  if (Math.abs(value) > INT32_MAX) return { ok: false, message: "is out of range" };
  return { ok: true, value };
}

function asBoolean(raw: unknown): Coerced {
  if (typeof raw === "boolean") return { ok: true, value: raw };
  // Not String(raw): an object such as {"toString": 1} makes that throw (a 500 the fuzzer found).
  const text = typeof raw === "string" || typeof raw === "number" ? String(raw).trim().toLowerCase() : "";
  if (TRUE.has(text)) return { ok: true, value: true };
  if (FALSE.has(text)) return { ok: true, value: false };
  return { ok: false, message: "must be true/false, 1/0 or yes/no" };
}

function asString(raw: unknown): Coerced {
  if (typeof raw === "string") {
    // PostgreSQL text cannot hold NUL; say which parameter carried one.
    return raw.includes("\u0000") ? { ok: false, message: "must not contain NUL characters" } : { ok: true, value: raw };
  }
  if (typeof raw === "number" || typeof raw === "boolean") return { ok: true, value: String(raw) };
  return { ok: false, message: "must be a single string" };
}

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

function asArray(raw: unknown): Coerced {
  // Items are never null: the GraphQL arguments they feed are lists of non-null values (a null item was a 500).
  const items = (list: unknown[]): Coerced => (list.some((item) => item === null) ? { ok: false, message: "must not hold null items" } : { ok: true, value: list });
  if (Array.isArray(raw)) return items(raw);
  if (typeof raw === "string") {
    const json = raw.trim().startsWith("[") ? parseJson(raw) : undefined;
    if (Array.isArray(json)) return items(json);
    return { ok: true, value: raw.split(",").map((item) => item.trim()).filter(Boolean) };
  }
  return { ok: true, value: [raw] };
}

function asMap(raw: unknown): Coerced {
  const value = typeof raw === "string" ? parseJson(raw) : raw;
  if (value && typeof value === "object" && !Array.isArray(value)) return { ok: true, value };
  return { ok: false, message: "must be an object of options (params[name]=value or a JSON object)" };
}

function asFile(raw: unknown): Coerced {
  if (raw instanceof File) return { ok: true, value: raw };
  if (Array.isArray(raw)) return { ok: false, message: "must be a single file" };
  return { ok: false, message: "must be a file (a part of a multipart/form-data body)" };
}

/** Reads one raw value as the parameter's type and format (also used to check documented defaults at start-up). */
export function coerce(param: RestParam, raw: unknown): Coerced {
  if (param.format === "map") return asMap(raw);
  // A comma-separated string may also arrive as a JSON array or as repeated keys.
  if (param.format === "list" && Array.isArray(raw)) {
    const items = raw.map(asString);
    const bad = items.find((item) => !item.ok);
    return bad ?? { ok: true, value: items.map((item) => (item as { value: string }).value.trim()).filter(Boolean) };
  }
  switch (param.type) {
    case "integer":
      return asInteger(raw);
    case "boolean":
      return asBoolean(raw);
    case "array":
      return asArray(raw);
    case "file":
      return asFile(raw);
    case "string": {
      const text = asString(raw);
      if (!text.ok) return text;
      const value = text.value as string;
      if (param.format === "timestamp") {
        const date = parseTimestamp(value);
        return date ? { ok: true, value: date.toISOString() } : { ok: false, message: "must be a timestamp YYYY-MM-DD HH:mm:ss" };
      }
      if (param.format === "list") return { ok: true, value: value.split(",").map((item) => item.trim()).filter(Boolean) };
      return text;
    }
  }
}

/** Values that mean "not given": nothing at all, or an empty value for a non-string parameter. */
function isAbsent(param: RestParam, raw: unknown): boolean {
  if (raw === undefined || raw === null) return true;
  return raw === "" && (param.type !== "string" || param.format === "timestamp");
}

/**
 * Whether the caller must send the parameter: required with no documented default. A parameter the API
 * document marks both required and defaulted may be left out and takes its default (the contract,
 * amended; groups' `join_policy`, the forum's `category_id`); OpenAPI and the area descriptions show it
 * optional with that default. The one rule readParams, OpenAPI, the descriptions and the start-up check read.
 */
export const mustBeGiven = (param: RestParam): boolean => param.required && param.default === undefined;

/** Whether an empty value clears the parameter's field (RestParam.clears). */
export const clearsWhenEmpty = (param: RestParam): boolean =>
  param.clears ?? (param.format === "timestamp" && param.default === undefined && !param.required);

/**
 * Reads every parameter of a row from the merged request values: enforces `required` (mustBeGiven: a
 * required parameter with a documented default takes the default), applies documented defaults (except
 * `now`, which the service applies at write time), and coerces types.
 * A partial row (PATCH) applies no defaults and refuses `null` for a field that cannot be cleared, so
 * a client that means "clear" is not silently ignored. A replacing row (PUT) applies no default to a
 * `privacy` parameter: left out, it keeps the stored value. Returns the GraphQL variables, or every problem found.
 */
export function readParams(
  params: RestParam[],
  values: Record<string, unknown>,
  { partial = false, replacing = false }: { partial?: boolean; replacing?: boolean } = {},
): { variables: Record<string, unknown>; problems: ParameterProblem[] } {
  const variables: Record<string, unknown> = {};
  const problems: ParameterProblem[] = [];
  for (const param of params) {
    // A JSON null is a value (it clears, or is refused): only a parameter not sent at all is looked for under its other names.
    const raw = values[param.name] !== undefined ? values[param.name] : param.alsoNamed?.map((name) => values[name]).find((given) => given !== undefined);
    let value: unknown;
    // Input objects exist even when no field of theirs is given: an empty PATCH still sends `input: {}`.
    ensureParent(variables, param.variable);
    if ((raw === "" || (partial && raw === null)) && clearsWhenEmpty(param)) {
      // An empty timestamp with no documented default clears it (e.g. publish_down: no end).
      setPath(variables, param.variable, null);
      continue;
    }
    if (partial && raw === null) {
      problems.push({ parameter: param.name, message: "cannot be null: leave it out to keep its value" });
      continue;
    }
    if (isAbsent(param, raw)) {
      if (mustBeGiven(param)) {
        if (!param.orGiven?.some((name) => !isAbsent(param, values[name]))) problems.push({ parameter: param.name, message: "is required" });
        continue;
      }
      if (param.default === undefined || param.default === "now" || (replacing && param.privacy)) continue;
      value = coerce(param, param.default);
      value = (value as Coerced).ok ? (value as { value: unknown }).value : undefined;
    } else {
      const result = coerce(param, raw);
      if (!result.ok) {
        problems.push({ parameter: param.name, message: result.message });
        continue;
      }
      value = result.value;
    }
    setPath(variables, param.variable, value);
  }
  return { variables, problems };
}

function ensureParent(target: Record<string, unknown>, path: string): void {
  let node = target;
  for (const key of path.split(".").slice(0, -1)) node = (node[key] ??= {}) as Record<string, unknown>;
}

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split(".");
  let node = target;
  for (const key of keys.slice(0, -1)) node = (node[key] ??= {}) as Record<string, unknown>;
  node[keys[keys.length - 1]!] = value;
}
