import { parse, type DocumentNode } from "graphql";
import { restName } from "../src/common/fields.js";
import type { AnyArea as Area, RestRow } from "../src/common/area.js";
import { fieldParams } from "./field-params.js";
import { listParams } from "./list-params.js";
import type { RestOperation, RestParam } from "./types.js";

/**
 * The REST rows of an area declared as one (src/common/area.ts): one per operation its `rest` names, each
 * running a document made here from the declaration — the record's fields under their REST names (the
 * `shown` fields, in order, aliased where GraphQL names them otherwise), the list's arguments from its
 * spec, the inputs from its field table.
 */

/** The fragment of the record as REST answers it: `fragment <Model>Rest on <Model> { id title scope_id: scopeId … }`. */
export function restFragmentText(area: Area): string {
  const selections = Object.entries(area.shown).flatMap(([name, shown]) => {
    const options = typeof shown === "object" ? shown : {};
    const key = options.rest ?? (options.relation ? false : restName(name));
    if (key === false) return [];
    return [key === name ? name : `${key}: ${name}`];
  });
  return `fragment ${area.model}Rest on ${area.model} {\n  ${selections.join("\n  ")}\n}`;
}

const document = (area: Area, operation: string): DocumentNode => parse(`${operation}\n\n${restFragmentText(area)}`);

const lowerFirst = (name: string) => name[0]!.toLowerCase() + name.slice(1);

/** The list's variables and arguments, as its spec takes them (src/graphql/list.ts). */
function listArguments(area: Area): { variables: string; args: string } {
  const spec = area.listSpec;
  const names: [string, string][] = [
    ...(spec.search ? ([["search", "String"]] as [string, string][]) : []),
    ...(spec.scoped ? ([["scope", "String"], ["scopeId", "Int"]] as [string, string][]) : []),
    ["sort", "String"],
    ["sortDir", "String"],
    ["limit", "Int"],
    ["start", "Int"],
  ];
  return { variables: names.map(([name, type]) => `$${name}: ${type}`).join(", "), args: names.map(([name]) => `${name}: $${name}`).join(", ") };
}

export function areaRows(area: Area): RestOperation[] {
  const { rest, model } = area;
  const writer = area.writes.by === "administrators" ? "administrator" : "signed-in user";
  const id: RestParam = { name: "id", type: "integer", required: true, description: rest.id ?? `${area.label} identifier.`, variable: "id" };
  const row = (declared: RestRow, method: RestOperation["method"], rest2: Omit<RestOperation, "area" | "method" | "path" | "versions" | "task">): RestOperation => ({
    area: declared.path.split("/")[1]!,
    method,
    path: declared.path,
    versions: declared.versions ?? rest.versions,
    task: declared.task,
    ...rest2,
  });
  const rows: RestOperation[] = [];
  if (rest.create) {
    rows.push(
      row(rest.create, "POST", {
        params: fieldParams(area.table, "create"),
        document: document(area, `mutation ${model}Create($input: Create${model}Input!) { create${model}(input: $input) { ...${model}Rest } }`),
        resultField: `create${model}`,
        response: { kind: "record" },
        status: 201,
        access: writer,
      }),
    );
  }
  if (rest.list) {
    const { variables, args } = listArguments(area);
    rows.push(
      row(rest.list, "GET", {
        params: listParams(area.listSpec),
        document: document(area, `query ${model}List(${variables}) { ${area.plural}(${args}) { items { ...${model}Rest } total } }`),
        resultField: area.plural,
        response: { kind: "list", key: rest.list.key, ...(rest.list.extra ? { extra: rest.list.extra } : {}) },
        status: 200,
        access: "anyone",
      }),
    );
  }
  if (rest.remove) {
    rows.push(
      row(rest.remove, "DELETE", {
        params: [id],
        document: parse(`mutation ${model}Delete($id: ID!) { delete${model}(id: $id) }`),
        resultField: `delete${model}`,
        response: { kind: "empty" },
        status: 204,
        access: writer,
      }),
    );
  }
  if (rest.read) {
    rows.push(
      row(rest.read, "GET", {
        params: [id],
        document: document(area, `query ${model}Read($id: ID!) { ${lowerFirst(model)}(id: $id) { ...${model}Rest } }`),
        resultField: lowerFirst(model),
        response: { kind: "record" },
        status: 200,
        access: "anyone",
      }),
    );
  }
  if (rest.replace) {
    rows.push(
      row(rest.replace, "PUT", {
        params: [id, ...fieldParams(area.table, "replace")],
        document: document(area, `mutation ${model}Update($id: ID!, $input: Update${model}Input!) { update${model}(id: $id, input: $input) { ...${model}Rest } }`),
        resultField: `update${model}`,
        response: { kind: "record" },
        status: 200,
        access: writer,
      }),
    );
  }
  return rows;
}
