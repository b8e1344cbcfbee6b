import {
  Kind,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  typeFromAST,
  validate,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from "graphql";
import { coerce, mustBeGiven } from "./params.js";
import { fieldsParamProblems, isFieldsParam, selectedKeys } from "./fields-param.js";
import { registeredResponseKinds, responseKind } from "./responses.js";
import type { RestOperation } from "./types.js";
import type { RestParam } from "../src/common/rest-vocabulary.js";

/**
 * The facade's start-up check: everything about a row that can be known before a request arrives. A
 * typo in a row (a variable the document does not declare, a path placeholder no parameter reads, a
 * REST type GraphQL cannot take) would otherwise pass the type check and show up only as 400s or 500s
 * on that one route. Throws one error listing every problem, each naming its row.
 */
export function checkFacadeTable(schema: GraphQLSchema, operations: RestOperation[]): void {
  const problems = operations.flatMap((operation) => rowProblems(schema, operation).map((problem) => `${rowName(operation)}: ${problem}`));
  if (problems.length) throw new Error(`The facade table is inconsistent (${problems.length} problem${problems.length === 1 ? "" : "s"}):\n  ${problems.join("\n  ")}`);
}

const rowName = (operation: RestOperation) => `facade row ${operation.method} ${operation.path} (v${operation.versions.join(", v")})`;

function rowProblems(schema: GraphQLSchema, operation: RestOperation): string[] {
  const problems: string[] = [];
  const kind = operation.response.kind;
  if (!responseKind(kind)) {
    problems.push(`response kind "${kind}" is not registered (registered: ${registeredResponseKinds().join(", ")}); import the file that registers it`);
  }
  problems.push(...pathProblems(operation));
  const errors = validate(schema, operation.document);
  if (errors.length) return [...problems, ...errors.map((error) => `document: ${error.message}`)];
  const definitions = operation.document.definitions.filter((definition) => definition.kind === Kind.OPERATION_DEFINITION);
  if (definitions.length !== 1) return [...problems, `document must hold exactly one operation, not ${definitions.length}`];
  const definition = definitions[0]!;
  const rootKeys = definition.selectionSet.selections.flatMap((selection) => (selection.kind === Kind.FIELD ? [(selection.alias ?? selection.name).value] : []));
  if (!rootKeys.includes(operation.resultField)) {
    problems.push(`resultField "${operation.resultField}" is not a root field of ${operationName(definition)} (it selects ${rootKeys.join(", ") || "none"})`);
  }
  problems.push(...paramProblems(schema, definition, operation.params));
  const fields = operation.params.filter(isFieldsParam);
  if (fields.length > 1) problems.push("more than one fields parameter");
  for (const param of fields) problems.push(...fieldsParamProblems(param, selectedKeys(schema, operation.document, operation.resultField)));
  return problems;
}

/** Every `{placeholder}` is read by exactly one parameter: the one named so, or the one that says `placeholder`. */
function pathProblems(operation: RestOperation): string[] {
  const problems: string[] = [];
  const placeholders = [...operation.path.matchAll(/\{(\w+)\}/g)].map((found) => found[1]!);
  for (const param of operation.params) {
    if (param.placeholder !== undefined && !placeholders.includes(param.placeholder)) {
      problems.push(`parameter "${param.name}" reads the placeholder {${param.placeholder}}, which the path does not have`);
    }
  }
  for (const placeholder of new Set(placeholders)) {
    if (placeholders.indexOf(placeholder) !== placeholders.lastIndexOf(placeholder)) problems.push(`the path has {${placeholder}} twice`);
    const readers = operation.params.filter((param) => readsPlaceholder(param) === placeholder);
    if (!readers.length) {
      problems.push(
        `the path placeholder {${placeholder}} is not a parameter of the row; if the API document names that parameter differently, give it placeholder: "${placeholder}"`,
      );
    }
    if (readers.length > 1) problems.push(`parameters ${readers.map((param) => `"${param.name}"`).join(" and ")} all read {${placeholder}}`);
  }
  return problems;
}

/** The path placeholder a parameter is read from, if its name or `placeholder` says so. */
export const readsPlaceholder = (param: RestParam): string => param.placeholder ?? param.name;

/** Given on every request: one the caller must send, or with a default the facade sends (`now` is the service's). */
const alwaysGiven = (param: RestParam) => mustBeGiven(param) || (param.default !== undefined && param.default !== "now");

function paramProblems(schema: GraphQLSchema, definition: OperationDefinitionNode, params: RestParam[]): string[] {
  const problems: string[] = [];
  const feeders = new Map<string, string>();
  const names = new Set<string>();
  for (const param of params) {
    const label = `parameter "${param.name}"`;
    if (names.has(param.name)) problems.push(`${label} is listed twice`);
    names.add(param.name);
    // A `fields` parameter feeds no variable: the facade projects the answer (checked in checkFacadeTable).
    if (isFieldsParam(param)) continue;
    const earlier = feeders.get(param.variable);
    if (earlier) problems.push(`${label} and parameter "${earlier}" both feed $${param.variable}`);
    feeders.set(param.variable, param.name);
    problems.push(...valueProblems(param).map((problem) => `${label} ${problem}`));

    const target = resolveVariable(schema, definition, param.variable);
    if (typeof target === "string") {
      problems.push(`${label} feeds ${target}`);
      continue;
    }
    const expected = graphqlTypesFor(param);
    if (!expected.accepts(target.type)) {
      problems.push(`${label} (${restType(param)}) feeds $${param.variable} of type ${String(target.type)}, which it cannot fill: it takes ${expected.description}`);
    }
    if (isNonNullType(target.type) && !target.hasDefault && !alwaysGiven(param)) {
      problems.push(
        `${label} is optional with no default, but feeds the non-null $${param.variable} (${String(target.type)}), which has no default: make the parameter required or give it a default, or make the GraphQL type nullable`,
      );
    }
  }
  problems.push(...unfedProblems(schema, definition, params.filter((param) => !isFieldsParam(param))));
  return problems;
}

/** Format and default agree with the type: the default would otherwise be dropped silently at request time. */
function valueProblems(param: RestParam): string[] {
  const problems: string[] = [];
  if ((param.format === "timestamp" || param.format === "list") && param.type !== "string") problems.push(`has format "${param.format}", which is for string parameters`);
  if (param.format === "map" && param.type !== "array") problems.push(`has format "map", which is for array parameters`);
  if (param.type === "file" && param.default !== undefined) problems.push("is a file and cannot have a default");
  else if (param.default === "now") {
    if (param.format !== "timestamp") problems.push(`has the default "now", which is for timestamps`);
  } else if (param.default !== undefined) {
    const read = coerce(param, param.default);
    if (!read.ok) problems.push(`has the default ${JSON.stringify(param.default)}, which ${read.message}`);
  }
  return problems;
}

type Target = { type: GraphQLInputType; hasDefault: boolean };

/** `id` → the declared `$id`; `input.scopeId` → the field `scopeId` of `$input`'s input object type. */
function resolveVariable(schema: GraphQLSchema, definition: OperationDefinitionNode, path: string): Target | string {
  const [head, ...fields] = path.split(".");
  const declared = definition.variableDefinitions ?? [];
  const variable = declared.find((candidate) => candidate.variable.name.value === head);
  if (!variable) {
    const names = declared.map((candidate) => `$${candidate.variable.name.value}`).join(", ") || "no variables";
    return `$${path}, but ${operationName(definition)} does not declare $${head} (it declares ${names})`;
  }
  let target: Target = { type: typeFromAST(schema, variable.type) as GraphQLInputType, hasDefault: variable.defaultValue !== undefined };
  let walked = `$${head}`;
  for (const name of fields) {
    const object = getNullableType(target.type);
    if (!isInputObjectType(object)) return `$${path}, but ${walked} is ${String(target.type)}, which has no fields`;
    const field = object.getFields()[name];
    if (!field) return `$${path}, but ${object.name} has no field "${name}" (fields: ${Object.keys(object.getFields()).join(", ")})`;
    target = { type: field.type, hasDefault: field.defaultValue !== undefined };
    walked += `.${name}`;
  }
  return target;
}

const operationName = (definition: OperationDefinitionNode) => definition.name?.value ?? `the ${definition.operation}`;

const restType = (param: RestParam) => (param.format ? `${param.type}, format ${param.format}` : param.type);

const isNumericEnum = (type: GraphQLInputType) => isEnumType(type) && type.getValues().every((value) => typeof value.value === "number");

const scalarNamed = (type: GraphQLInputType, names: string[]) => {
  const nullable = getNullableType(type);
  return isScalarType(nullable) && names.includes(nullable.name);
};

/**
 * The GraphQL types a REST parameter may feed, as readParams sends its value: integer → Int, ID or an
 * enum whose values are numbers;
 * string → String or ID (timestamp: DateTime; list: [String]); boolean → Boolean; array → any list
 * (map: JSON); file → the File scalar.
 */
function graphqlTypesFor(param: RestParam): { accepts(type: GraphQLInputType): boolean; description: string } {
  const scalars = (...names: string[]) => ({ accepts: (type: GraphQLInputType) => scalarNamed(type, names), description: names.join(" or ") });
  switch (param.type) {
    case "integer":
      // Or an enum of documented numbers (access levels): rest-facade/enums.ts swaps number and name.
      return {
        accepts: (type) => scalarNamed(type, ["Int", "ID"]) || isNumericEnum(getNullableType(type)),
        description: "Int, ID or an enum of numbers",
      };
    case "boolean":
      return scalars("Boolean");
    case "file":
      return scalars("File");
    case "array":
      if (param.format === "map") return scalars("JSON");
      return { accepts: (type) => isListType(getNullableType(type)), description: "a list" };
    case "string": {
      if (param.format === "timestamp") return scalars("DateTime");
      if (param.format === "list") {
        return {
          accepts: (type) => {
            const list = getNullableType(type);
            return isListType(list) && scalarNamed(list.ofType as GraphQLInputType, ["String"]);
          },
          description: "[String]",
        };
      }
      // Or a numbered enum REST names (src/common/access.ts, `restNames`): rest-facade/enums.ts reads name or number.
      return {
        accepts: (type) => scalarNamed(type, ["String", "ID"]) || (isNumericEnum(getNullableType(type)) && Boolean((getNullableType(type) as { extensions?: { restNames?: unknown } }).extensions?.restNames)),
        description: "String, ID or an enum of named numbers",
      };
    }
  }
}

/**
 * Non-null variables (and non-null fields of input objects the row fills) without a default that the
 * row may leave out: GraphQL would refuse every such request.
 */
function unfedProblems(schema: GraphQLSchema, definition: OperationDefinitionNode, params: RestParam[]): string[] {
  const problems: string[] = [];
  const feeding = (path: string) => params.filter((param) => param.variable === path || param.variable.startsWith(`${path}.`));
  const visit = (path: string, type: GraphQLInputType, hasDefault: boolean, owner: string) => {
    const fed = feeding(path);
    if (isNonNullType(type) && !hasDefault) {
      if (!fed.length) problems.push(`$${path} (${String(type)}) is required by ${owner}, but no parameter feeds it`);
      // An input object fed by any parameter is always sent, empty if need be (readParams); its own
      // required fields are checked below.
      else if (!fed.some(alwaysGiven) && !fed.some((param) => param.variable === path) && !isInputObjectType(getNullableType(type))) {
        problems.push(`$${path} (${String(type)}) is required by ${owner}, but only optional parameters without defaults feed it`);
      }
    }
    const object = getNullableType(type);
    if (!isInputObjectType(object) || !fed.some((param) => param.variable !== path)) return;
    for (const field of Object.values(object.getFields())) visit(`${path}.${field.name}`, field.type, field.defaultValue !== undefined, object.name);
  };
  for (const variable of definition.variableDefinitions ?? []) {
    const type = typeFromAST(schema, variable.type) as GraphQLInputType;
    visit(variable.variable.name.value, type, variable.defaultValue !== undefined, operationName(definition));
  }
  return problems;
}
