import { prismaDatamodel } from "./datamodel.js";
import type { Shown } from "./area-declaration.js";

/**
 * `shown`, then the scalars of the model that an input field writes (`written`) and `shown` does not name (as
 * a field or a `from`). Fails closed: a scalar neither named, written nor `hidden` is refused, so nothing the
 * declaration does not speak of is ever shown.
 */
export function withModelScalars(model: string, shown: Record<string, Shown>, hidden: string[], written: string[]): Record<string, Shown> {
  const fields = prismaDatamodel().datamodel.models[model]?.fields ?? [];
  const named = new Set([...Object.keys(shown), ...Object.values(shown).flatMap((field) => (typeof field === "object" && field.from ? [field.from] : []))]);
  for (const name of hidden) {
    if (!fields.some((field) => field.name === name)) throw new Error(`${model}: hidden field ${name} is not a field of the model`);
  }
  const unsaid = fields.filter((field) => field.kind === "scalar" && !named.has(field.name) && !hidden.includes(field.name));
  const unwritten = unsaid.filter((field) => !written.includes(field.name));
  if (unwritten.length) {
    throw new Error(`${model}: ${unwritten.map((field) => field.name).join(", ")}: say whether the record type shows each (shown) or not (hidden)`);
  }
  return { ...shown, ...Object.fromEntries(unsaid.map((field) => [field.name, true as const])) };
}
