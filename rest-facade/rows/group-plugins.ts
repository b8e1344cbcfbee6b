import path from "node:path";
import { fileURLToPath } from "node:url";
import { Kind, type DefinitionNode, type DocumentNode } from "graphql";
import type { RestOperation } from "../types.js";
import type { RestParam } from "../../src/common/rest-vocabulary.js";
import { fieldParams } from "../field-params.js";
import { pageParams } from "../page-params.js";
import { groupPlugins, pluginFields, type GroupPlugin } from "../../src/groups/plugins.js";
import { twinNames } from "../../src/groups/plugin-graphql.js";
import { restFragments, withFragments } from "../area-rows.js";

/**
 * The API document's plugin-record operations (Groups: `/groups/{group}/{plugin}…`, version 1.0), one set
 * of five rows per registered group plugin (src/groups/plugins.ts), its name in place of `{plugin}`: so
 * the OpenAPI document, the fuzzer and the shared tests cover every plugin, and a path naming no plugin
 * matches no row (404). Each row runs the plugin's GraphQL twin with a document made here from the
 * plugin's REST selection; the record and list shapes are its area's own.
 *
 * Parameters as documented: `id`, the group's gidNumber or cn, read from `{group}`; `record_id` from the
 * record's placeholder, `{record_id}` in every row's path (the document writes `{id}` for PUT and DELETE and
 * `{record_id}` for GET; OpenAPI 3.1 forbids two templates that differ only in a placeholder's name,
 * docs/decisions.md "OpenAPI"); the list's `limit` and `start`; the write rows the area's field table but
 * `scope`/`scope_id` (the path says where the record lives). `active` is the path segment itself.
 */
const group: RestParam = {
  name: "id",
  type: "string",
  required: true,
  description: "The group's gidNumber or cn (as in its URL).",
  variable: "group",
  placeholder: "group",
};

const recordId = (plugin: GroupPlugin, placeholder: string): RestParam => ({
  name: "record_id",
  type: "integer",
  required: true,
  description: `The ${plugin.noun}'s identifier.`,
  variable: "id",
  ...(placeholder === "record_id" ? {} : { placeholder }),
});

// Found by absolute path, as table.ts finds the rows (also under vite, which refuses a templated relative import).
const generatedDir = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "generated");
const extension = path.extname(fileURLToPath(import.meta.url));

/** The fragments a plugin's documents file defines, from its generated module (rest-facade/generated/<name>.ts). */
async function fragmentsOf(plugin: GroupPlugin): Promise<DefinitionNode[]> {
  const { documents } = plugin.rest;
  if (typeof documents === "object") return [...restFragments(documents.area)];
  const generated = (await import(path.join(generatedDir, `${documents}${extension}`))) as Record<string, unknown>;
  const fragments = new Map<string, DefinitionNode>();
  for (const value of Object.values(generated)) {
    for (const definition of (value as Partial<DocumentNode>).definitions ?? []) {
      if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    }
  }
  return [...fragments.values()];
}

const operationName = (plugin: GroupPlugin, action: string) =>
  `Group${plugin.name.replace(/(^|-)([a-z])/g, (_match, _dash, letter: string) => letter.toUpperCase())}${action}`;

async function rowsOf(plugin: GroupPlugin): Promise<RestOperation[]> {
  const fragments = await fragmentsOf(plugin);
  const names = twinNames(plugin);
  const { selection } = plugin.rest;
  const base = `/groups/{group}/${plugin.name}`;
  const common: Pick<RestOperation, "area" | "versions" | "documentedIn"> = { area: "groups", versions: ["1.0"], documentedIn: "group-plugins" };
  const writeFields = pluginFields(plugin);
  return [
    {
      ...common,
      method: "POST",
      path: base,
      task: `create a record for a plugin type (${plugin.name}: a ${plugin.noun})`,
      params: [group, ...fieldParams(writeFields, "create", { except: plugin.rest.createExcept })],
      document: withFragments(
        fragments,
        `mutation ${operationName(plugin, "Create")}($group: String!, $input: ${names.createInput}!) { ${names.create}(group: $group, input: $input) { ${selection} } }`,
      ),
      resultField: names.create,
      response: { kind: "record" },
      status: 201,
      access: "signed-in user",
    },
    {
      ...common,
      method: "GET",
      path: `${base}/list`,
      task: `list records for a plugin type (${plugin.name})`,
      params: [group, ...pageParams()],
      document: withFragments(
        fragments,
        `query ${operationName(plugin, "List")}($group: String!, $limit: Int, $start: Int) { ${names.list}(group: $group, limit: $limit, start: $start) { items { ${selection} } total } }`,
      ),
      resultField: names.list,
      response: { kind: "list", ...plugin.rest.list },
      status: 200,
      access: "anyone",
    },
    {
      ...common,
      method: "DELETE",
      path: `${base}/{record_id}`,
      task: `delete a record for a plugin type (${plugin.name})`,
      params: [group, recordId(plugin, "record_id")],
      document: withFragments(fragments, `mutation ${operationName(plugin, "Delete")}($group: String!, $id: ID!) { ${names.remove}(group: $group, id: $id) }`),
      resultField: names.remove,
      response: { kind: "empty" },
      status: 204,
      access: "signed-in user",
    },
    {
      ...common,
      method: "PUT",
      path: `${base}/{record_id}`,
      task: `update a record for a plugin type (${plugin.name})`,
      params: [group, recordId(plugin, "record_id"), ...fieldParams(writeFields, "replace")],
      document: withFragments(
        fragments,
        `mutation ${operationName(plugin, "Update")}($group: String!, $id: ID!, $input: ${names.updateInput}!) { ${names.update}(group: $group, id: $id, input: $input) { ${selection} } }`,
      ),
      resultField: names.update,
      response: { kind: "record" },
      status: 200,
      access: "signed-in user",
    },
    {
      ...common,
      method: "GET",
      path: `${base}/{record_id}`,
      task: `retrieve a record for a plugin type (${plugin.name})`,
      params: [group, recordId(plugin, "record_id")],
      document: withFragments(fragments, `query ${operationName(plugin, "Read")}($group: String!, $id: ID!) { ${names.read}(group: $group, id: $id) { ${selection} } }`),
      resultField: names.read,
      response: { kind: "record" },
      status: 200,
      access: "anyone",
    },
  ];
}

const operations: RestOperation[] = (await Promise.all(groupPlugins().map(rowsOf))).flat();

export default operations;
