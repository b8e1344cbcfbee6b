import { queryFromInfo } from "@pothos/plugin-prisma";
import type { ListArgs } from "../common/list-spec.js";
import { parseId } from "../common/validation.js";
import { moduleFiles } from "../common/modules.js";
import { builder } from "../graphql/builder.js";
import { tableInput } from "../graphql/fields.js";
import { listArgs, listType } from "../graphql/list.js";
import { CHANGES_ONE_RECORD, type LooseBuilder } from "../graphql/crud.js";
import { groupOperations, groupPlugins, pluginFields, type GroupPlugin } from "./plugins.js";

/**
 * Loads every plugin file of src/groups/plugins/ (found by name, so adding a plugin edits no shared file)
 * and adds each plugin's GraphQL twins. Imported once by src/areas.ts (the schema) and by the facade's
 * rows (rest-facade/rows/group-plugins.ts); a module loads once, so the twins are added once.
 */
for (const file of moduleFiles(import.meta.url, "plugins")) await import(file);

/** The twins' names, by the contract's naming rule with `group` in front. */
export const twinNames = (plugin: GroupPlugin) => ({
  read: `group${plugin.model}`,
  list: `group${plugin.plural}`,
  create: `createGroup${plugin.model}`,
  update: `updateGroup${plugin.model}`,
  remove: `deleteGroup${plugin.model}`,
  createInput: `CreateGroup${plugin.model}Input`,
  updateInput: `UpdateGroup${plugin.model}Input`,
});

const GROUP_ARG = "The group's gidNumber or cn (as in its URL).";

function addTwins(plugin: GroupPlugin): void {
  const loose = builder as unknown as LooseBuilder;
  const names = twinNames(plugin);
  const operations = groupOperations(plugin);
  const fields = pluginFields(plugin);
  const { model } = plugin;
  const group = (t: { arg: (options: object) => unknown }) => t.arg({ type: "String", required: true, description: GROUP_ARG });

  loose.queryField(names.read, (t) =>
    t.prismaField({
      type: model,
      description: `One ${plugin.noun} of the group (${plugin.name} plugin) the caller may see.`,
      authScopes: { public: true },
      args: { group: group(t), id: t.arg.id({ required: true }) },
      resolve: (query, _root, args, ctx) => operations.read(ctx, args.group as string, parseId(args.id as string), query),
    }),
  );
  const ListType = listType(`${model}List`, plugin.type);
  loose.queryField(names.list, (t) =>
    t.field({
      type: ListType,
      description: `The group's ${plugin.noun} records (${plugin.name} plugin) the caller may see, searched, sorted and paged.`,
      authScopes: { public: true },
      // The list's own arguments but the scope: the group says it.
      args: { group: group(t), ...listArgs({ ...plugin.service.list.spec, scoped: false }) },
      resolve: (_root, args, ctx, info) =>
        operations.list(ctx, args.group as string, args as ListArgs, queryFromInfo({ context: ctx, info: info!, typeName: model, path: ["items"] })),
    }),
  );
  const createInput = tableInput(names.createInput, fields, "create", `A new ${plugin.noun} of the group the mutation names.`);
  loose.mutationField(names.create, (t) =>
    t.prismaField({
      type: model,
      authScopes: { user: true },
      args: { group: group(t), input: t.arg({ type: createInput, required: true }) },
      resolve: (query, _root, args, ctx) => operations.create(ctx, args.group as string, args.input as object, query),
    }),
  );
  const updateInput = tableInput(names.updateInput, fields, "update", "Only the given fields change; the record stays in its group.");
  loose.mutationField(names.update, (t) =>
    t.prismaField({
      type: model,
      nullable: true,
      description: "Changes the group's record; answers it as the caller may read it, or null when the caller may change it but not read it.",
      authScopes: { user: true },
      args: { group: group(t), id: t.arg.id({ required: true }), input: t.arg({ type: updateInput, required: true }) },
      extensions: CHANGES_ONE_RECORD,
      resolve: (query, _root, args, ctx) => operations.update(ctx, args.group as string, parseId(args.id as string), args.input as object, query),
    }),
  );
  loose.mutationField(names.remove, (t) =>
    t.field({
      type: "ID",
      description: `Deletes the group's ${plugin.noun}; returns its id.`,
      authScopes: { user: true },
      args: { group: group(t), id: t.arg.id({ required: true }) },
      extensions: CHANGES_ONE_RECORD,
      resolve: (_root, args, ctx) => operations.remove(ctx, args.group as string, parseId(args.id as string)),
    }),
  );
}

for (const plugin of groupPlugins()) addTwins(plugin);
