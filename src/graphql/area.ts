import type { ObjectRef } from "@pothos/core";
import { prismaDatamodel } from "../common/datamodel.js";
import { declaredAreas } from "../common/area.js";
import type { AnyArea, ListFilter, Shown } from "../common/area-declaration.js";
import type { RequestContext } from "../common/context.js";
import { privateFieldShown } from "../common/row-reading.js";
import { type RecordsDeclaration } from "../common/records.js";
import { accessEnum } from "./access.js";
import { builder, type Types } from "./builder.js";
import { recordFields } from "./crud.js";
import { tableInput } from "./fields.js";

/**
 * An area's GraphQL (src/common/area.ts): its record type, whose fields are typed after the Prisma model,
 * and its root fields and inputs by the contract's naming rule (src/graphql/crud.ts), resolved by the
 * service the kit made from the same declaration.
 */

const types = new Map<string, ObjectRef<Types, object>>();

/** A Prisma scalar's GraphQL type, as the record type's field `shownAs` shows it (`id` is an ID). */
function scalarType(model: string, name: string, shownAs: string): { type: unknown; nullable: boolean } {
  const field = prismaDatamodel().datamodel.models[model]?.fields.find((candidate) => candidate.name === name);
  if (!field || field.kind !== "scalar") throw new Error(`${model}.${name}: the record type shows a field the model does not have as a scalar`);
  const scalar = shownAs === "id" && name === "id" ? "ID" : field.type === "Json" ? "JSON" : field.type === "Boolean" ? "Boolean" : field.type;
  if (!["ID", "String", "Int", "DateTime", "JSON", "Boolean"].includes(scalar)) throw new Error(`${model}.${name}: no GraphQL type for ${field.type}`);
  return { type: field.isList ? [scalar] : scalar, nullable: !field.isRequired };
}

type LooseObjectFieldBuilder = {
  expose(name: string, options: object): unknown;
  field(options: object): unknown;
  relation(name: string, options?: object): unknown;
  arg: ((options: object) => unknown) & Record<"id" | "int" | "string", (options?: object) => unknown>;
};

/** A field's arguments (`versionId`), as Pothos takes them. */
function argumentsOf(t: LooseObjectFieldBuilder, args: NonNullable<Exclude<Shown, true | string>["args"]>): Record<string, unknown> {
  const kinds = { ID: "id", Int: "int", String: "string" } as const;
  return Object.fromEntries(
    Object.entries(args).map(([name, arg]) => [
      name,
      t.arg[kinds[arg.type]]({ description: arg.description, ...(arg.default === undefined ? {} : { defaultValue: arg.default }) }),
    ]),
  );
}

function shownField(t: LooseObjectFieldBuilder, model: string, name: string, shown: Shown, records?: RecordsDeclaration): unknown {
  const options = typeof shown === "object" ? shown : { description: typeof shown === "string" ? shown : undefined };
  const { description } = options;
  const args = "args" in options && options.args ? { args: argumentsOf(t, options.args) } : {};
  const nullable = "nullable" in options && options.nullable !== undefined ? { nullable: options.nullable } : {};
  const from = ("from" in options && options.from) || name;
  // A field only the record itself sees (an account's e-mail, to its owner): null to everyone else but administrators.
  if (records?.privateFields?.shownTo === "self" && records.privateFields.fields.includes(from)) {
    if (("resolve" in options && options.resolve) || ("relation" in options && options.relation)) throw new Error(`${model}.${name}: a private field is answered by the kit (privateFields), not by its own resolver`);
    const scalar = scalarType(model, from, name);
    return t.field({
      type: scalar.type,
      nullable: true,
      description,
      resolve: (row: Record<string, unknown>, _args: unknown, ctx: RequestContext) => (privateFieldShown(records, from, ctx.viewer, row.id as number) ? row[from] : null),
    });
  }
  if ("relation" in options && options.relation) {
    return t.relation(name, { description, ...nullable, ...args, ...("query" in options && options.query ? { query: options.query } : {}) });
  }
  if ("resolve" in options && options.resolve) {
    const type = options.type === "[String]" ? ["String"] : options.type;
    const select = "select" in options && options.select ? { select: options.select } : {};
    const resolve = options.resolve as (row: unknown, args: unknown, ctx: unknown) => unknown;
    return t.field({ type, nullable: options.nullable ?? false, description, ...args, ...select, resolve: (row: unknown, given: unknown, ctx: unknown) => resolve(row, given, ctx) });
  }
  if ("levels" in options && options.levels) {
    return t.field({ type: accessEnum(options.levels), description, resolve: (row: Record<string, unknown>) => row[from] });
  }
  const scalar = scalarType(model, from, name);
  return t.expose(from, { type: scalar.type, nullable: scalar.nullable, ...nullable, description });
}

/** A Prisma model's object type with these fields. */
function recordType(model: string, description: string, shown: Record<string, Shown>, records?: RecordsDeclaration): ObjectRef<Types, object> {
  // Pothos types Prisma fields by the model's name literal; one helper serves every model, so the fields
  // are built loosely here and the schema is held to its SDL by codegen:check.
  return (builder.prismaObject as (model: string, options: object) => ObjectRef<Types, object>)(model, {
    description,
    fields: (t: LooseObjectFieldBuilder) => Object.fromEntries(Object.entries(shown).map(([name, field]) => [name, shownField(t, model, name, field, records)])),
  });
}

/** The record type of an area, made once, with its related types and root fields. */
export function areaType(area: AnyArea): ObjectRef<Types, object> {
  let type = types.get(area.area);
  if (!type) {
    for (const [model, related] of Object.entries(area.related ?? {})) recordType(model, related!.description, related!.shown);
    type = recordType(area.model, area.description, area.shownFields, area.records);
    types.set(area.area, type);
    if (area.rootFields === false) return type;
    const writers = area.writes.by === "administrators" ? "admin" : "user";
    // Writes only an area with events has: every change is one (src/common/area.ts, `events`).
    const changes = area.events !== undefined;
    recordFields(area.model, {
      type,
      plural: area.plural,
      // A key (a group's gidNumber or cn) is handed over as given: the service parses it (400 naming `id`).
      ...(area.key ? { key: { description: area.key.description, parse: (raw: string) => String(raw) } } : {}),
      ...(area.read ? { read: { description: area.read.description, resolve: (ctx, id, query) => area.readRecord(ctx, id, query) } } : {}),
      ...(area.list
        ? {
            list: {
              description: area.list.description,
              spec: area.listSpec,
              filters: area.list.filters ? (t) => listFilterArguments(t, area.list!.filters!) : undefined,
              resolve: (ctx, args, query) => area.listRecords(ctx, args, query),
            },
          }
        : {}),
      create: {
        // Open to anyone while the configuration says so (accounts): the area's own create decides who.
        scope: area.writes.openedBy ? "public" : area.writes.creates === "administrators" ? "admin" : writers,
        description: area.writes.create,
        input: tableInput(`Create${area.model}Input`, area.table, "create"),
        resolve: (ctx, input, query) => area.createRecord(ctx, input as Record<string, unknown>, query),
      },
      ...(changes
        ? {
            update: {
              scope: writers,
              input: tableInput(`Update${area.model}Input`, area.table, "update", area.writes.update),
              resolve: (ctx, id, input, query) => area.updateRecord(ctx, id, input as Record<string, unknown>, query),
            },
            remove: { scope: writers, description: area.writes.remove ?? "", resolve: (ctx, id) => area.removeRecord(ctx, id) },
          }
        : {}),
    });
  }
  return type;
}

/** A list's equality filters as GraphQL arguments (AreaDeclaration.list.filters). */
function listFilterArguments(t: Parameters<Parameters<typeof builder.args>[0]>[0], filters: Record<string, ListFilter>) {
  return Object.fromEntries(
    Object.entries(filters).map(([name, filter]) => {
      const options = { description: filter.description, ...(filter.default === undefined ? {} : { defaultValue: filter.default }) };
      if (filter.type === "Boolean") return [name, t.boolean(options as { defaultValue?: boolean })];
      return [name, filter.type === "Int" ? t.int(options as { defaultValue?: number }) : t.string(options as { defaultValue?: string })];
    }),
  );
}

/** Refuses a schema without the GraphQL of an area that is declared (imported after src/graphql/declared-areas.ts). */
export function assertEveryAreaHasGraphql(): void {
  const missing = declaredAreas().filter((area) => !types.has(area.area));
  if (missing.length) {
    throw new Error(`areas ${missing.map((area) => area.area).join(", ")} are declared after their GraphQL was made: import them in src/areas.ts before "./graphql/declared-areas.js"`);
  }
}

/** The GraphQL of every area defined so far (src/areas.ts calls it after importing them). */
export function declaredAreasGraphql(): void {
  for (const area of declaredAreas()) areaType(area);
}
