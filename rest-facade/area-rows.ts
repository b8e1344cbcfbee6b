import { Kind, parse, print, type DefinitionNode, type DocumentNode } from "graphql";
import { restName } from "../src/common/fields.js";
import type { AnyArea as Area, ListFilter, RelatedType, Shown } from "../src/common/area-declaration.js";
import type { RestRow } from "../src/common/rest-vocabulary.js";
import { fieldParams } from "./field-params.js";
import { listParams } from "./list-params.js";
import { fieldsParam } from "./fields-param.js";
// Response kinds a declared area may ask for beside the kit's own (groups' list: a bare array).
import "./responses/array.js";
import type { RestOperation } from "./types.js";
import type { RestParam } from "../src/common/rest-vocabulary.js";

/**
 * The REST rows of an area declared as one (src/common/area.ts): one per operation its `rest` names, each
 * running a document made here from the declaration — the record's fields under their REST names (the
 * `shown` fields, in order, aliased where GraphQL names them otherwise), the list's arguments from its
 * spec, the inputs from its field table.
 */

/** One record type as REST answers it: `fragment <Model>Rest on <Model> { id title scope_id: scopeId … }`. */
function fragmentText(model: string, shown: Record<string, Shown>): string {
  const selections = Object.entries(shown).flatMap(([name, field]) => {
    const options = typeof field === "object" ? field : {};
    const key = options.rest ?? (options.relation ? false : restName(name));
    if (key === false) return [];
    return [key === name ? name : `${key}: ${name}`];
  });
  return `fragment ${model}Rest on ${model} {\n  ${selections.join("\n  ")}\n}`;
}

/** The fragments of the area's record types (its own, `<Model>Rest`, and its related types'). */
export function restFragmentText(area: Area): string {
  return [
    fragmentText(area.model, area.shownFields),
    ...Object.entries(area.related ?? {}).map(([model, related]) => fragmentText(model, (related as RelatedType).shown)),
  ].join("\n\n");
}

const parsedFragments = new Map<Area, readonly DefinitionNode[]>();

/** The area's fragments parsed, once per area: its own rows, its group plugin's and the forum's thread read spread them. */
export function restFragments(area: Area): readonly DefinitionNode[] {
  let fragments = parsedFragments.get(area);
  if (!fragments) parsedFragments.set(area, (fragments = parse(restFragmentText(area)).definitions));
  return fragments;
}

/**
 * One named operation with the fragments it spreads, directly or through other fragments; the others are
 * left out (a fragment defined and not used is invalid GraphQL). Shared with the group plugins' rows.
 */
export function withFragments(fragments: readonly DefinitionNode[], text: string): DocumentNode {
  const operation = parse(text);
  const used = new Set<string>();
  const spreads = (source: string) => [...source.matchAll(/\.\.\.(\w+)/g)].map((found) => found[1]!);
  const pending = spreads(text);
  const byName = new Map(fragments.flatMap((definition) => (definition.kind === Kind.FRAGMENT_DEFINITION ? [[definition.name.value, definition] as const] : [])));
  while (pending.length) {
    const name = pending.pop()!;
    if (used.has(name) || !byName.has(name)) continue;
    used.add(name);
    pending.push(...spreads(print(byName.get(name)!)));
  }
  return { ...operation, definitions: [...operation.definitions, ...[...used].map((name) => byName.get(name)!)] };
}

/** A row's extra variables (`, $versionId: ID`) and what it selects on the record beyond the fragment. */
const extraVariables = (row: RestRow) => (row.params ?? []).map((param) => `, $${param.variable}: ${param.graphqlType}`).join("");
/** A row's own parameters, and its `fields` projection last. */
const extraParams = (row: RestRow): RestParam[] => [...(row.params ?? []).map(({ graphqlType: _type, ...param }) => param), ...(row.fields ? [fieldsParam({ alwaysKept: [], ...row.fields })] : [])];
const selected = (model: string, row: RestRow) => `...${model}Rest${row.selection ? ` ${row.selection}` : ""}`;

const lowerFirst = (name: string) => name[0]!.toLowerCase() + name.slice(1);

/** The list's equality filters as REST parameters (AreaDeclaration.list.filters), each feeding its argument. */
function filterParams(area: Area): RestParam[] {
  return Object.entries((area.list?.filters ?? {}) as Record<string, ListFilter>).map(([name, filter]) => ({
    name: restName(name),
    type: filter.type === "Int" ? "integer" : filter.type === "Boolean" ? "boolean" : "string",
    required: filter.required ?? false,
    ...(filter.default === undefined ? {} : { default: filter.default }),
    description: filter.description,
    variable: name,
  }));
}

/** The list's variables and arguments, as its spec and filters take them (src/graphql/list.ts); `fixed` ones as literals. */
function listArguments(area: Area, fixed: Record<string, number | string> = {}): { variables: string; args: string } {
  const spec = area.listSpec;
  const names: [string, string][] = [
    ...Object.entries((area.list?.filters ?? {}) as Record<string, ListFilter>).map(([name, filter]): [string, string] => [name, filter.type]),
    ...(spec.search ? ([["search", "String"]] as [string, string][]) : []),
    ...(spec.scoped ? ([["scope", "String"], ["scopeId", "Int"]] as [string, string][]) : []),
    ["sort", "String"],
    ["sortDir", "String"],
    ["limit", "Int"],
    ["start", "Int"],
  ];
  const taken = names.filter(([name]) => !Object.hasOwn(fixed, name));
  return {
    variables: taken.map(([name, type]) => `$${name}: ${type}`).join(", "),
    args: names.map(([name]) => `${name}: ${Object.hasOwn(fixed, name) ? JSON.stringify(fixed[name]) : `$${name}`}`).join(", "),
  };
}

/** The list row's parameters as documented (`rest.list.documented`): in its order, renamed where it says, the others not taken. */
function documentedParams(params: RestParam[], documented: Record<string, string | true> | undefined): RestParam[] {
  if (!documented) return params;
  return Object.entries(documented).map(([name, as]) => {
    const param = params.find((candidate) => candidate.name === name);
    if (!param) throw new Error(`rest.list.documented names ${name}, which the list does not take (${params.map((candidate) => candidate.name).join(", ")})`);
    return as === true ? param : { ...param, name: as };
  });
}

export function areaRows(area: Area): RestOperation[] {
  const { rest, model } = area;
  if (!rest) return [];
  const fragments = restFragments(area);
  const writer = area.writes.by === "administrators" ? "administrator" : "signed-in user";
  const creator = area.writes.creates === "administrators" ? "administrator" : writer;
  // Records only administrators read are refused to anyone else (src/common/area.ts), reads too.
  const reader = area.records.administratorsOnly ? "administrator" : "anyone";
  const declaredId = typeof rest.id === "string" ? { description: rest.id } : rest.id;
  const id: RestParam = {
    name: "id",
    type: declaredId && "type" in declaredId && declaredId.type ? declaredId.type : "integer",
    required: true,
    ...(declaredId && "default" in declaredId && declaredId.default !== undefined ? { default: declaredId.default } : {}),
    description: declaredId?.description ?? `${area.label} identifier.`,
    variable: "id",
  };
  // PUT names the record to replace: it never takes a default id.
  const { default: _none, ...replacedId } = id;
  /** The id as one row names it when it says (plugins: `extension_id`, read from `{id}`), with only the default it gives. */
  const idOf = (row: RestRow, base: RestParam): RestParam => {
    if (!row.id) return base;
    const { name, description, default: fallback } = row.id;
    const { default: _base, ...named } = base;
    return {
      ...named,
      ...(name && name !== "id" ? { name, placeholder: "id" } : {}),
      ...(description ? { description } : {}),
      ...(fallback === undefined ? {} : { default: fallback }),
    };
  };
  const row = (declared: RestRow, method: RestOperation["method"], rest2: Omit<RestOperation, "area" | "method" | "path" | "versions" | "task">): RestOperation => ({
    area: declared.path.split("/")[1]!,
    method,
    path: declared.path,
    ...(declared.documentedIn ? { documentedIn: declared.documentedIn } : {}),
    versions: declared.versions ?? rest.versions,
    task: declared.task,
    ...rest2,
  });
  const rows: RestOperation[] = [];
  if (rest.create) {
    rows.push(
      row(rest.create, "POST", {
        params: [...fieldParams(area.table, "create", { except: rest.create.except }), ...extraParams(rest.create)],
        document: withFragments(fragments, `mutation ${model}Create($input: Create${model}Input!${extraVariables(rest.create)}) { create${model}(input: $input) { ${selected(model, rest.create)} } }`),
        resultField: `create${model}`,
        response: { kind: "record" },
        status: 201,
        access: creator,
        ...(area.writes.openedBy ? { opensToAnonymous: area.writes.openedBy } : {}),
      }),
    );
  }
  for (const list of rest.list ? [rest.list].flat() : []) {
    const { variables, args } = listArguments(area, list.fixed);
    const taken = [...filterParams(area), ...listParams(area.listSpec)].filter((param) => !list.except?.includes(param.name));
    rows.push(
      row(list, list.method ?? "GET", {
        params: [...documentedParams(taken, list.documented), ...extraParams(list)],
        document: withFragments(fragments, `query ${model}List${variables ? `(${variables})` : ""} { ${area.plural}(${args}) { items { ${selected(model, list)} } total } }`),
        resultField: area.plural,
        response: "response" in list ? list.response : { kind: "list", key: list.key, ...(list.extra ? { extra: list.extra } : {}) },
        status: 200,
        access: reader,
      }),
    );
  }
  if (rest.remove) {
    rows.push(
      row(rest.remove, "DELETE", {
        params: [idOf(rest.remove, id)],
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
        params: [idOf(rest.read, id), ...extraParams(rest.read)],
        document: withFragments(fragments, `query ${model}Read($id: ID!${extraVariables(rest.read)}) { ${lowerFirst(model)}(id: $id) { ${selected(model, rest.read)} } }`),
        resultField: lowerFirst(model),
        response: { kind: "record" },
        status: 200,
        access: reader,
      }),
    );
  }
  if (rest.replace) {
    rows.push(
      row(rest.replace, "PUT", {
        params: [idOf(rest.replace, replacedId), ...fieldParams(area.table, "replace", { except: rest.replace.except }), ...extraParams(rest.replace)],
        document: withFragments(
          fragments,
          `mutation ${model}Update($id: ID!, $input: Update${model}Input!${extraVariables(rest.replace)}) { update${model}(id: $id, input: $input) { ${selected(model, rest.replace)} } }`,
        ),
        resultField: `update${model}`,
        response: { kind: "record" },
        status: 200,
        access: writer,
      }),
    );
  }
  return rows;
}
