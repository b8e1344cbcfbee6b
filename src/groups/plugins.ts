import type { ObjectRef } from "@pothos/core";
import type { RequestContext } from "../common/context.js";
import type { AnyFields } from "../common/fields.js";
import type { AnyArea } from "../common/area-declaration.js";
import { areaType } from "../graphql/area.js";
import type { ListArgs, ListSpec, Page } from "../common/list-spec.js";
import type { Selection } from "../graphql/crud.js";
import { withinScope } from "../common/scopes.js";
import type { Types } from "../graphql/builder.js";
import { GROUP_SCOPE } from "./scope.js";
import { groupIdFromPath } from "./identity.js";

/**
 * Per-group plugin records (issue 17 item 4; docs/decisions.md, "Group plugins"): each plugin serves one
 * area's records under `/groups/{group}/<name>` and as the GraphQL twins `group<Model>(group, id)`,
 * `group<Plural>(group, …)`, `createGroup<Model>(group, input)`, `updateGroup<Model>(group, id, input)`,
 * `deleteGroup<Model>(group, id)` (src/groups/plugin-graphql.ts). A plugin is one file in
 * src/groups/plugins/ calling `defineGroupPlugin`; the facade rows (rest-facade/rows/group-plugins.ts)
 * and the twins are made from the registry, so neither names a plugin.
 *
 * The group comes from the path only: `{group}` (gidNumber or cn) is resolved by `groupIdFromPath` (404
 * for an unknown group and for a hidden one the caller may not know), and the area's service runs
 * confined to that group (`withinScope`): a record of another group is 404, and nothing it writes can
 * land in, or move to, another scope. The inputs take no `scope`/`scopeId` at all.
 */
export interface GroupPlugin {
  /** The path segment, `/groups/{group}/<name>` (the API document's `active`: "blog", "wiki"…). */
  name: string;
  /** The area whose records it serves (as in its events and its scope-content removal). */
  area: string;
  /** The Prisma model and GraphQL record type: the twins are named after it (`groupBlogEntry`, `createGroupBlogEntry`). */
  model: string;
  /** The list twin's name after `group` (`BlogEntries` → `groupBlogEntries`). */
  plural: string;
  /** The record type, as the area's graphql.ts made it. */
  type: ObjectRef<Types, object>;
  /** A record in the task descriptions ("entry", "page"). */
  noun: string;
  /** The area's field table: the inputs and the write rows take its fields but `scope` and `scopeId`. */
  fields: AnyFields;
  /** The area's service, unchanged: it runs confined to the group, with `scope`/`scopeId` filled from the path. */
  service: {
    list: { spec: ListSpec; resolve(ctx: RequestContext, args: ListArgs, query: Selection): Page<unknown> };
    read(ctx: RequestContext, id: number, query: Selection): Promise<unknown>;
    create(ctx: RequestContext, input: object, query: Selection): Promise<unknown>;
    update(ctx: RequestContext, id: number, input: object, query: Selection): Promise<unknown>;
    remove(ctx: RequestContext, id: number): Promise<number>;
  };
  /**
   * What the REST answers hold, as the area's own rows answer: `selection`, the fields selected on the
   * record (fragment spreads and more), `documents`, the documents file of rest-facade/documents/ that
   * defines its fragments (read from its generated module, so the schema never waits for codegen), and
   * the list wrapper's key and extra keys (blog `{"posts","total","success"}`, wiki `{"pages","total"}`).
   */
  rest: {
    selection: string;
    /** A documents file's name, or the area declared as one whose fragments its own rows use (rest-facade/area-rows.ts). */
    documents: string | { area: AnyArea };
    list: { key: string; extra?: Record<string, unknown> };
    /** Fields of the table the area's own POST row does not take (the wiki's `summary`): the plugin's POST row leaves them out too. */
    createExcept?: string[];
  };
}

/** The fields a group plugin's inputs and write rows leave out: the path says where the record lives. */
export const SCOPE_FIELDS = ["scope", "scopeId"];

const registered = new Map<string, GroupPlugin>();

/**
 * The plugin of an area declared as one (src/common/area.ts): its model, record type, field table and
 * service are the declaration's, its REST fragments those of the area's own rows.
 */
export function declaredAreaPlugin(
  area: AnyArea,
  plugin: Pick<GroupPlugin, "name" | "plural" | "noun"> & { rest: Omit<GroupPlugin["rest"], "documents"> },
): GroupPlugin {
  return {
    ...plugin,
    area: area.area,
    model: area.model,
    type: areaType(area),
    fields: area.table,
    service: { list: { spec: area.listSpec, resolve: area.listRecords }, read: area.readRecord, create: area.createRecord, update: area.updateRecord, remove: area.removeRecord },
    rest: { ...plugin.rest, documents: { area } },
  };
}

/** Registers a plugin; its name must be a path segment no other plugin (and not `list`) takes. */
export function defineGroupPlugin(plugin: GroupPlugin): GroupPlugin {
  if (!/^[a-z][a-z0-9-]*$/.test(plugin.name) || plugin.name === "list") throw new Error(`group plugin name ${plugin.name} cannot be a path segment`);
  if (registered.has(plugin.name)) throw new Error(`group plugin ${plugin.name} is defined twice`);
  registered.set(plugin.name, plugin);
  return plugin;
}

/** Every registered plugin, by name (so the rows and the schema do not depend on load order). */
export const groupPlugins = (): GroupPlugin[] => [...registered.values()].sort((a, b) => a.name.localeCompare(b.name));

/** The field table without the scope fields (for the twins' inputs and the plugin write rows). */
export const pluginFields = (plugin: GroupPlugin): AnyFields => ({
  fields: Object.fromEntries(Object.entries(plugin.fields.fields).filter(([name]) => !SCOPE_FIELDS.includes(name))),
});

/**
 * Runs `work` with the group the path names, confined to it (`withinScope`): `group` is the gidNumber or
 * cn as given, `parameter` the name a 400 or 404 about it names.
 */
export async function inGroup<T>(ctx: RequestContext, group: string, work: (confined: RequestContext, scope: { scope: string; scopeId: number }) => Promise<T>, parameter = "group"): Promise<T> {
  const scopeId = await groupIdFromPath(ctx, group, parameter);
  const scope = { scope: GROUP_SCOPE.name, scopeId };
  return withinScope(ctx, scope, (confined) => work(confined, scope));
}

/**
 * The five operations of a plugin on one group, as the twins and rows run them. Writes fill the scope
 * from the path over whatever the input says (the inputs have no scope fields; a caller of the service
 * cannot smuggle one in either: the confinement refuses another scope).
 */
export const groupOperations = (plugin: GroupPlugin) => ({
  list: (ctx: RequestContext, group: string, args: ListArgs, query: Selection) =>
    inGroup(ctx, group, async (confined, scope) => plugin.service.list.resolve(confined, { ...args, ...scope }, query)),
  read: (ctx: RequestContext, group: string, id: number, query: Selection) => inGroup(ctx, group, (confined) => plugin.service.read(confined, id, query)),
  create: (ctx: RequestContext, group: string, input: object, query: Selection) =>
    inGroup(ctx, group, (confined, scope) => plugin.service.create(confined, { ...input, ...scope }, query)),
  update: (ctx: RequestContext, group: string, id: number, input: object, query: Selection) =>
    inGroup(ctx, group, (confined) => plugin.service.update(confined, id, withoutScope(input), query)),
  remove: (ctx: RequestContext, group: string, id: number) => inGroup(ctx, group, (confined) => plugin.service.remove(confined, id)),
});

function withoutScope(input: object): object {
  return Object.fromEntries(Object.entries(input).filter(([name]) => !SCOPE_FIELDS.includes(name)));
}
