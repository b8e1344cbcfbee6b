import { Prisma, type PrismaClient } from "../generated/prisma/client.js";
import { prismaDatamodel } from "./datamodel.js";

// ---------------------------------------------------------------------------------------------------
// The model: table and column names (Prisma's runtime data model) and relations (Pothos' DMMF copy).

export interface FieldInfo {
  name: string;
  column: string;
  kind: string;
  type: string;
  isList: boolean;
  isRequired: boolean;
  /** To-one relations held by this model: the scalar field holding the other record's id. */
  from?: string;
  /** Prisma's @updatedAt: the write path sets it to the transaction's time on every update. */
  isUpdatedAt: boolean;
}

export interface ModelInfo {
  name: string;
  table: string;
  fields: Map<string, FieldInfo>;
  scalars: FieldInfo[];
}

interface RuntimeDataModel {
  models: Record<string, { dbName: string | null; fields: { name: string; kind: string; type: string; dbName?: string | null }[] }>;
}

const identifier = /^[A-Za-z_][A-Za-z0-9_]*$/;
let models: Map<string, ModelInfo> | undefined;

/** Every model's table, columns and relations; the same for every client of this generated schema. */
export function modelInfo(prisma: PrismaClient, model: string): ModelInfo {
  if (!models) {
    // The generated client keeps the data model on each instance only (no export); it is the schema's.
    const runtime = (prisma as unknown as { _runtimeDataModel?: RuntimeDataModel })._runtimeDataModel;
    if (!runtime?.models) throw new Error("the Prisma client exposes no runtime data model (src/common/model.ts)");
    const relations = prismaDatamodel().datamodel.models;
    models = new Map();
    for (const [name, definition] of Object.entries(runtime.models)) {
      const related = new Map(relations[name]?.fields.map((field) => [field.name, field]));
      const fields = definition.fields.map((field): FieldInfo => {
        const column = field.dbName ?? field.name;
        if (!identifier.test(column)) throw new Error(`${name}.${field.name}: column name ${column} needs quoting rules the kit does not have`);
        const dmmf = related.get(field.name);
        const from = dmmf?.relationFromFields?.length === 1 ? dmmf.relationFromFields[0] : undefined;
        return {
          name: field.name,
          column,
          kind: field.kind,
          type: field.type,
          isList: dmmf?.isList ?? false,
          isRequired: dmmf?.isRequired ?? false,
          from,
          isUpdatedAt: (dmmf as { isUpdatedAt?: boolean } | undefined)?.isUpdatedAt ?? false,
        };
      });
      models.set(name, {
        name,
        table: definition.dbName ?? name,
        fields: new Map(fields.map((field) => [field.name, field])),
        scalars: fields.filter((field) => field.kind !== "object"),
      });
    }
  }
  const found = models.get(model);
  if (!found) throw new Error(`no Prisma model ${model}`);
  return found;
}

/** `alias."column"` of a scalar field, checked against the model. */
export function column(info: ModelInfo, alias: string, field: string): Prisma.Sql {
  const found = info.fields.get(field);
  if (!found || found.kind === "object") throw new Error(`${info.name} has no scalar field ${field}`);
  return Prisma.raw(`${alias}."${found.column}"`);
}

export const table = (info: ModelInfo, alias: string) => Prisma.raw(`"${info.table}" ${alias}`);
