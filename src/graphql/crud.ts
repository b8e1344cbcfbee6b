import { queryFromInfo } from "@pothos/plugin-prisma";
import type { InputObjectRef, ObjectRef } from "@pothos/core";
import type { GraphQLResolveInfo } from "graphql";
import type PrismaTypes from "../generated/prisma/pothos-types.js";
import type { RequestContext } from "../common/context.js";
import type { ListArgs, ListSpec, Page } from "../common/list-spec.js";
import { parseId } from "../common/validation.js";
import { builder, type Types } from "./builder.js";
import { listArgs, listType } from "./list.js";

type ModelName = keyof PrismaTypes & string;
/** What Pothos' Prisma plugin asks the service to load for the selected fields. */
export type Selection = { include?: object; select?: object };
type Scope = "public" | "user" | "admin";
type Input = InputObjectRef<Types, object>;
const lowerFirst = (name: string) => name[0]!.toLowerCase() + name.slice(1);

/**
 * The extension of a root mutation field that changes the one record its `id` names through the write path
 * (`changeRecord`, src/common/write-path.ts), which compares If-Match with the locked row's version: only such
 * a field takes If-Match (src/execution/conditions.ts `changesOneRecord`).
 */
export const CHANGES_ONE_RECORD = { changesOneRecord: true } as const;

/**
 * Marks a mutation whose answer holds a secret shown once (a signing secret, a client secret): it takes no
 * Idempotency-Key, whose answer is kept for a day (src/execution/conditions.ts).
 */
export const ANSWERS_SECRET = { answersSecret: true } as const;

/**
 * Marks a mutation that runs work of its own apart from the operation (plugin handlers, each isolated with
 * its own budget and failures): one key's transaction cannot hold it, so it takes no Idempotency-Key.
 */
export const RUNS_APART = { runsApart: true } as const;

export interface RecordFields {
  /** The record type, as `builder.prismaObject` returned it. */
  type: ObjectRef<Types, object>;
  /** The list field's name (`wikiPages`); the single read is the model name in camelCase. */
  plural: string;
  /**
   * How the `id` argument names a record: absent, a positive integer id (`parseId`); else this parse (a
   * group's gidNumber or cn), whose result the resolvers get, and the argument's description.
   */
  key?: { description: string; parse(raw: string): number | string };
  read?: { description: string; resolve(ctx: RequestContext, id: number | string, query: Selection): Promise<unknown> };
  /** `filters`: the list's own arguments beside the spec's (plugins: folder, enabled, access), handed to `resolve` with them. */
  list?: {
    description: string;
    spec: ListSpec;
    filters?: Parameters<typeof builder.args>[0];
    resolve(ctx: RequestContext, args: ListArgs, query: Selection): Page<unknown>;
  };
  create?: { scope: Scope; description?: string; input: Input; resolve(ctx: RequestContext, input: object, query: Selection): Promise<unknown> };
  update?: { scope: Scope; input: Input; resolve(ctx: RequestContext, id: number | string, input: object, query: Selection): Promise<unknown> };
  remove?: { scope: Scope; description: string; resolve(ctx: RequestContext, id: number | string): Promise<number> };
}

/**
 * The root fields of a record type, named by the contract's one rule (`wikiPage`, `wikiPages`,
 * `createWikiPage`, `updateWikiPage`, `deleteWikiPage`), each declaring its auth rule and resolved by
 * the area's service; the selection Pothos works out from the query is handed to the service so
 * relations load with the records. Only the parts an area gives are added.
 */
export function recordFields(model: ModelName, fields: RecordFields): void {
  // Pothos types Prisma fields by the model's name literal; one helper serves every model, so the
  // definitions are typed loosely here and held to the schema by the tests over HTTP.
  const loose = builder as unknown as LooseBuilder;
  const single = lowerFirst(model);
  const { read, list, create, update, remove } = fields;
  const key = (raw: unknown) => (fields.key ? fields.key.parse(raw as string) : parseId(raw as string));
  const idArg = (t: LooseFieldBuilder) => t.arg.id({ required: true, description: fields.key?.description });
  if (read) {
    loose.queryField(single, (t) =>
      t.prismaField({
        type: model,
        description: read.description,
        authScopes: { public: true },
        args: { id: idArg(t) },
        resolve: (query, _root, args, ctx) => read.resolve(ctx, key(args.id), query),
      }),
    );
  }
  if (list) {
    const ListType = listType(`${model}List`, fields.type);
    loose.queryField(fields.plural, (t) =>
      t.field({
        type: ListType,
        description: list.description,
        authScopes: { public: true },
        args: { ...listArgs(list.spec), ...(list.filters ? builder.args(list.filters) : {}) },
        resolve: (_root, args, ctx, info) =>
          list.resolve(ctx, args as ListArgs, queryFromInfo({ context: ctx, info: info!, typeName: model, path: ["items"] })),
      }),
    );
  }
  if (create) {
    loose.mutationField(`create${model}`, (t) =>
      t.prismaField({
        type: model,
        description: create.description,
        authScopes: { [create.scope]: true },
        args: { input: t.arg({ type: create.input, required: true }) },
        resolve: (query, _root, args, ctx) => create.resolve(ctx, args.input as object, query),
      }),
    );
  }
  if (update) {
    loose.mutationField(`update${model}`, (t) =>
      t.prismaField({
        type: model,
        // Null: the change is done, but the caller may not read the record (a scope's manager and a member's draft).
        nullable: true,
        description: "Changes the record; answers it as the caller may read it, or null when the caller may change it but not read it.",
        authScopes: { [update.scope]: true },
        extensions: CHANGES_ONE_RECORD,
        args: { id: idArg(t), input: t.arg({ type: update.input, required: true }) },
        resolve: (query, _root, args, ctx) => update.resolve(ctx, key(args.id), args.input as object, query),
      }),
    );
  }
  if (remove) {
    loose.mutationField(`delete${model}`, (t) =>
      t.field({
        type: "ID",
        description: remove.description,
        authScopes: { [remove.scope]: true },
        extensions: CHANGES_ONE_RECORD,
        args: { id: idArg(t) },
        resolve: (_root, args, ctx) => remove.resolve(ctx, key(args.id)),
      }),
    );
  }
}

export type Resolver<R> = (query: Selection, root: unknown, args: Record<string, unknown>, ctx: RequestContext, info?: GraphQLResolveInfo) => R;
/** Root fields typed loosely (see recordFields): shared with the group plugins' twins (src/groups/plugin-graphql.ts). */
export interface LooseFieldBuilder {
  arg: ((options: object) => unknown) & { id(options?: object): unknown };
  prismaField(options: { type: string; nullable?: boolean; description?: string; authScopes: object; args: object; extensions?: object; resolve: Resolver<unknown> }): unknown;
  field(options: {
    type: unknown;
    description?: string;
    authScopes: object;
    args: object;
    extensions?: object;
    resolve: (root: unknown, args: Record<string, unknown>, ctx: RequestContext, info?: GraphQLResolveInfo) => unknown;
  }): unknown;
}
export interface LooseBuilder {
  queryField(name: string, field: (t: LooseFieldBuilder) => unknown): void;
  mutationField(name: string, field: (t: LooseFieldBuilder) => unknown): void;
}
