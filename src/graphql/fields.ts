import type { InputObjectRef } from "@pothos/core";
import { describedFor, fieldsOf, type FieldDeclaration, type FieldMode, type AnyFields } from "../common/fields.js";
import { accessEnum } from "./access.js";
import { builder, type Types } from "./builder.js";

/** A field table's GraphQL type: access levels become their area's enum; `[String]` a list. */
function graphqlType(field: FieldDeclaration) {
  if (typeof field.type !== "string") return accessEnum(field.type);
  return field.type === "[String]" ? ["String"] : field.type;
}

/**
 * The create or update input type of an area, from its field table (src/common/fields.ts): every field
 * the input takes, with its description; the create input requires what the table requires, the update
 * input nothing (a partial update).
 */
export function tableInput(name: string, table: AnyFields, mode: FieldMode, description?: string): InputObjectRef<Types, object> {
  return builder.inputType(name, {
    description,
    fields: (t) =>
      Object.fromEntries(
        fieldsOf(table, mode).map(([field, declaration]) => [
          field,
          // One builder call for every type: Pothos types input fields by the literal type, which a table
          // declares as data, so the field is typed loosely here and the schema is checked by codegen:check.
          (t.field as (options: object) => ReturnType<typeof t.string>)({
            type: graphqlType(declaration),
            required: mode === "create" && Boolean(declaration.required),
            description: describedFor(declaration.description, mode),
          }),
        ]),
      ),
  }) as InputObjectRef<Types, object>;
}
