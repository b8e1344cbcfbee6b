import type { EnumRef } from "@pothos/core";
import type { NumberedEnum } from "../common/access.js";
import { builder, type Types } from "./builder.js";

const enums = new Map<string, EnumRef<Types, number, number>>();

/**
 * The GraphQL enum of an area's access levels. Its internal values are the documented numbers, so
 * services see the same numbers from both surfaces, and the REST facade converts numbers to names and
 * back by reading the enum (rest-facade/enums.ts).
 */
export function accessEnum(levels: NumberedEnum): EnumRef<Types, number, number> {
  let ref = enums.get(levels.enumName);
  if (!ref) {
    ref = builder.enumType(levels.enumName, {
      description: levels.restNames
        ? `Stored as numbers (REST shows the names and takes names or numbers: ${levels.description})`
        : `Access levels (REST numbers them: ${levels.description})`,
      // `restNames`/`restName`: read by the REST facade (rest-facade/enums.ts, render.ts).
      extensions: levels.restNames ? { restNames: true } : undefined,
      values: Object.fromEntries(
        levels.levels.map((level) => [
          level.graphqlName,
          { value: level.value, description: `${level.value}: ${level.label}`, extensions: { restName: level.label } },
        ]),
      ),
    }) as EnumRef<Types, number, number>;
    enums.set(levels.enumName, ref);
  }
  return ref;
}
