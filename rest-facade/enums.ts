import { GraphQLEnumType, GraphQLInputObjectType, Kind, getNamedType, typeFromAST, type DocumentNode, type GraphQLInputType, type GraphQLSchema } from "graphql";
import type { ParameterProblem } from "../src/common/errors.js";
import type { RestParam } from "../src/common/rest-vocabulary.js";
import { isNumericEnum, restNameOf, showsRestNames } from "./render.js";

/**
 * REST carries each area's documented numbers (wiki access 0/1/4) where GraphQL has an enum whose
 * internal values are those numbers (src/graphql/access.ts). Worked out once per document: which
 * variable paths (`input.access`) are such enums; a request swaps numbers for enum names.
 */
export function numericEnumVariables(schema: GraphQLSchema, document: DocumentNode): Map<string, GraphQLEnumType> {
  const found = new Map<string, GraphQLEnumType>();
  const visit = (path: string, type: GraphQLInputType, depth: number) => {
    const named = getNamedType(type);
    if (isNumericEnum(named)) found.set(path, named);
    if (named instanceof GraphQLInputObjectType && depth < 3) {
      for (const field of Object.values(named.getFields())) visit(`${path}.${field.name}`, field.type, depth + 1);
    }
  };
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    for (const variable of definition.variableDefinitions ?? []) {
      const type = typeFromAST(schema, variable.type) as GraphQLInputType | undefined;
      if (type) visit(variable.variable.name.value, type, 0);
    }
  }
  return found;
}

/** Replaces each documented number with its enum name; a number the enum does not have is a problem naming the REST parameter. */
export function numbersToEnumNames(
  enums: Map<string, GraphQLEnumType>,
  params: RestParam[],
  variables: Record<string, unknown>,
): ParameterProblem[] {
  const problems: ParameterProblem[] = [];
  for (const param of params) {
    const type = enums.get(param.variable);
    if (!type) continue;
    const keys = param.variable.split(".");
    const holder = keys.slice(0, -1).reduce<Record<string, unknown> | undefined>((node, key) => node?.[key] as Record<string, unknown> | undefined, variables);
    const key = keys[keys.length - 1]!;
    if (!holder || holder[key] === undefined || holder[key] === null) continue;
    const given = holder[key];
    // Named numbers take the name (any case) or the number, also as digits (a query string's `1`).
    const byName = showsRestNames(type) && typeof given === "string";
    const number = byName && /^\d+$/.test((given as string).trim()) ? Number(given) : given;
    const value = type
      .getValues()
      .find((candidate) => candidate.value === number || (byName && restNameOf(candidate) === String(given).trim().toLowerCase()));
    if (value) holder[key] = value.name;
    else problems.push({ parameter: param.name, message: `must be ${describeNumbers(type)}` });
  }
  return problems;
}

const describeNumbers = (type: GraphQLEnumType) => {
  const values = showsRestNames(type)
    ? type.getValues().map((value) => `${restNameOf(value)} (${value.value})`)
    : type.getValues().map((value) => `${value.value} (${value.description?.replace(/^\d+: /, "") ?? value.name.toLowerCase()})`);
  return values.length > 1 ? `${values.slice(0, -1).join(", ")} or ${values[values.length - 1]}` : values.join("");
};
