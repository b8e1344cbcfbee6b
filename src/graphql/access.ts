import type { EnumRef } from "@pothos/core";
import type { AccessLevels } from "../common/access.js";
import { builder, type Types } from "./builder.js";

const enums = new Map<string, EnumRef<Types, number, number>>();

/**
 * The GraphQL enum of an area's access levels. Its internal values are the documented numbers, so
 * services see the same numbers from both surfaces, and the REST facade converts numbers to names and
 * back by reading the enum (rest-facade/enums.ts).
 */
export function accessEnum(levels: AccessLevels): EnumRef<Types, number, number> {
  let ref = enums.get(levels.enumName);
  if (!ref) {
    ref = builder.enumType(levels.enumName, {
      description: `Access levels (REST numbers them: ${levels.description})`,
      values: Object.fromEntries(
        levels.levels.map((level) => [level.graphqlName, { value: level.value, description: `${level.value}: ${level.label}` }]),
      ),
    }) as EnumRef<Types, number, number>;
    enums.set(levels.enumName, ref);
  }
  return ref;
}
