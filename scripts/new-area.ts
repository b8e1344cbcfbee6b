// npm run area:new -- <name> [--model <Model>] [--plural <field>] [--out <dir>]: writes the skeleton of a new
// area (docs/adding-an-area.md): src/<name>/ (service.ts with its records, list spec, field table and write
// path calls; graphql.ts; testing.ts), rest-facade/rows/<name>.ts, rest-facade/documents/<name>.graphql and
// prisma/schema/<name>.prisma, under --out (default: this checkout), then prints the steps left to review,
// the migration lines among them. Refuses a name that is an area already, here or under --out.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const repository = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

const { positionals, values: options } = parseArgs({
  allowPositionals: true,
  options: { model: { type: "string" }, plural: { type: "string" }, out: { type: "string" } },
});
const name = positionals[0];
if (positionals.length !== 1 || !name || !/^[a-z][a-z0-9]*$/.test(name)) {
  console.error("usage: npm run area:new -- <name: lowercase letters and digits> [--model <Model>] [--plural <graphqlListField>] [--out <dir>]");
  process.exit(1);
}

const singular = name.endsWith("ies") ? `${name.slice(0, -3)}y` : name.endsWith("s") ? name.slice(0, -1) : name;
const model = options.model ?? singular[0]!.toUpperCase() + singular.slice(1);
if (!/^[A-Z][A-Za-z0-9]*$/.test(model)) {
  console.error(`--model ${model}: a Prisma model name is PascalCase`);
  process.exit(1);
}
const single = model[0]!.toLowerCase() + model.slice(1);
const plural = options.plural ?? (name !== single ? name : single.endsWith("y") ? `${single.slice(0, -1)}ies` : `${single}s`);
const constant = name.toUpperCase();
const table = name;
const out = path.resolve(options.out ?? repository);

const files: Record<string, string> = {
  [`src/${name}/service.ts`]: service(),
  [`src/${name}/graphql.ts`]: graphql(),
  [`src/${name}/group-content.ts`]: groupContent(),
  [`src/${name}/testing.ts`]: testing(),
  [`rest-facade/rows/${name}.ts`]: rows(),
  [`rest-facade/documents/${name}.graphql`]: documents(),
  [`prisma/schema/${name}.prisma`]: prismaModel(),
};

// An area is its folder, its rows and its model: any of them already there (in this checkout, where the
// area would land, or under --out) means the name is taken.
const taken = [...new Set([repository, out])].flatMap((root) =>
  [`src/${name}`, `rest-facade/rows/${name}.ts`, `rest-facade/documents/${name}.graphql`, `prisma/schema/${name}.prisma`]
    .map((file) => path.join(root, file))
    .filter((file) => fs.existsSync(file)),
);
if (taken.length) {
  console.error(`area ${name} exists already (${taken.join(", ")}); choose another name`);
  process.exit(1);
}

for (const [file, text] of Object.entries(files)) {
  fs.mkdirSync(path.dirname(path.join(out, file)), { recursive: true });
  fs.writeFileSync(path.join(out, file), text);
  console.log(`wrote ${path.join(out, file)}`);
}
console.log(`
Next, each to review (docs/adding-an-area.md, "Steps"):
  1. prisma/schema/users.prisma, model User: add the back-relation
       ${plural.padEnd(17)} ${model}[]
  2. npm run db:migration -- add_${name}
     and append to the migration it writes the value checks (the documented numbers only) and the counters:
       ALTER TABLE "${table}" ADD CONSTRAINT "${table}_access_check" CHECK ("access" IN (0, 1, 2));
       ALTER TABLE "${table}" ADD CONSTRAINT "${table}_state_check" CHECK ("state" IN (0, 1));
       SELECT list_counts_track('${table}', 'state', 1, 'access', 'created_by', 'scope', 'scope_id', '', '');
       SELECT list_versions_track('${table}', 'scope', 'scope_id');
     then npx prisma generate and npm run db:check
  3. src/areas.ts: import "./${name}/graphql.js";
  4. docs/events.md: the events ${name}.${single}Created, ${name}.${single}Updated, ${name}.${single}Deleted
  5. npm run codegen
  6. src/${name}/testing.ts: replace \`documented\` with the API document's parameter lists, transcribed by
     hand; then make the field table, the rows and the model say what the document says.`);

function service(): string {
  return `import { z } from "zod";
import { Prisma, type ${model} } from "../generated/prisma/client.js";
import type { RequestContext } from "../common/context.js";
import { notFound } from "../common/errors.js";
import { DEFAULT_SCOPE, listSpec, pagedList, type ListArgs } from "../common/paging.js";
import { accessLevels } from "../common/access.js";
import { accessField, columnValues, createdByField, createdField, fieldTable, stateField } from "../common/fields.js";
import { changedRecord, createdRecord, decodeScalars, findVisible, modelInfo, records, type Selection } from "../common/records.js";
import { scopeKindField } from "../common/scope-kinds.js";
import { assertCanWriteInScope, requireUser, resolveCreator } from "../common/scopes.js";
import { changesNothing, parseInput, type RawInput } from "../common/validation.js";
import { domainEvents } from "../common/events.js";
import { changeRecord, createRecord, deleteRecord, insertStatement, updateStatement, writtenRecords } from "../common/write-path.js";

/** ${model} access levels, as the API document numbers them. */
export const ${constant}_ACCESS = accessLevels("${model}Access", [
  { value: 0, level: "public" },
  { value: 1, level: "registered" },
  { value: 2, level: "private" },
], 0);

/** ${model} records and who sees them (the contract's access rule; published = state 1). */
export const ${constant}_RECORDS = records({
  model: "${model}",
  scoped: true,
  published: { field: "state", value: 1 },
  access: ${constant}_ACCESS,
  creator: "createdById",
});

/** GET /${name}/list and \`${plural}\`: sort whitelist, defaults, scope and search. */
export const ${constant}_LIST = listSpec({
  records: ${constant}_RECORDS,
  sortColumns: { id: "id", title: "title", created: "created", modified: "modified" },
  defaults: { sort: "created", sortDir: "desc", limit: 25 },
  search: { in: "title", fields: ["title"] },
});

/** The ${name} field table (src/common/fields.ts): its inputs, their rules, columns and REST parameters. */
export const ${constant}_FIELDS = fieldTable({
  title: { type: "String", rule: z.string().trim().min(1, "must not be empty").max(255), required: true, rest: { description: "Title." } },
  created: createdField,
  createdBy: createdByField,
  state: stateField,
  access: accessField(${constant}_ACCESS),
  scope: { type: "String", rule: scopeKindField, description: 'Default "site".', default: DEFAULT_SCOPE.scope, rest: { description: "Scope.", privacy: true } },
  scopeId: { type: "Int", rule: z.number().int().min(0), description: "Default 0.", default: DEFAULT_SCOPE.scopeId, rest: { description: "Scope ID.", privacy: true } },
});

export type Create${model} = RawInput<typeof ${constant}_FIELDS.create>;
export type Update${model} = RawInput<typeof ${constant}_FIELDS.update>;

type Query = { include?: Prisma.${model}Include; select?: Prisma.${model}Select };

export function list${model}s(ctx: RequestContext, args: ListArgs, query: Query = {}) {
  return pagedList<${model}>(${constant}_LIST, ctx, args, query as Selection);
}

/** A record the caller may see, or 404 (records the caller may not see do not exist for them). */
export async function get${model}(ctx: RequestContext, id: number, query: Query = {}) {
  const record = await findVisible<${model}>(ctx, ${constant}_RECORDS, id, query as Selection);
  if (!record) throw notFound(\`${model} \${id} not found.\`);
  return record;
}

/** The ${name} domain events (docs/events.md). */
export const ${constant}_EVENTS = domainEvents("${name}", {
  ${single}Created: "A ${single} was created.",
  ${single}Updated: "A ${single}'s fields changed; \`changed\` names them.",
  ${single}Deleted: "A ${single} was deleted.",
});

/** ${model} records on the write path (src/common/write-path.ts). */
export const ${constant}_WRITES = writtenRecords({
  area: "${name}",
  records: ${constant}_RECORDS,
  names: ["title"],
  notFound: (id) => \`${model} \${id} not found.\`,
  forbidden: "Only the creator, a group manager or an administrator can change this ${single}.",
});

export async function create${model}(ctx: RequestContext, input: Create${model}, query: Query = {}) {
  const user = requireUser(ctx);
  const data = parseInput(${constant}_FIELDS.create, input);
  const values = columnValues(${constant}_FIELDS, data, "create");
  const createdById = await resolveCreator(ctx, data.createdBy, user.id);
  const created = await createRecord<${model}>(ctx, ${constant}_WRITES, {
    event: ${constant}_EVENTS.${single}Created,
    // Whether the scope exists and admits the caller, asked in the insert's own statement.
    scope: { scope: values.scope as string, scopeId: values.scopeId as number },
    inserted: Prisma.sql\`created AS (\${insertStatement(ctx, ${constant}_RECORDS, { ...values, createdById })})\`,
  });
  return createdRecord<${model}>(ctx, ${constant}_RECORDS, created!.id, query as Selection);
}

/** Changes the given fields only; a new scope must be writable. Null when the caller may change it but not read it. */
export async function update${model}(ctx: RequestContext, id: number, input: Update${model}, query: Query = {}) {
  requireUser(ctx);
  const data = parseInput(${constant}_FIELDS.update, input);
  await changeRecord<${model}>(ctx, ${constant}_WRITES, id, {
    event: ${constant}_EVENTS.${single}Updated,
    async change(tx, record) {
      if (changesNothing(data)) return { row: record, changed: [] };
      const scope = { scope: data.scope ?? record.scope, scopeId: data.scopeId ?? record.scopeId };
      if (scope.scope !== record.scope || scope.scopeId !== record.scopeId) await assertCanWriteInScope(tx, scope.scope, scope.scopeId);
      const createdBy = await resolveCreator(tx, data.createdBy, record.createdById);
      const [row] = await tx.tx.query<Record<string, unknown>>(
        updateStatement(tx, ${constant}_RECORDS, id, { ...columnValues(${constant}_FIELDS, { ...data, createdBy }, "update"), ...scope }),
      );
      return { row: decodeScalars<${model}>(modelInfo(ctx.db, "${model}"), row!) };
    },
  });
  return changedRecord<${model}>(ctx, ${constant}_RECORDS, id, query as Selection);
}

/** Deletes a record: the creator, a group manager or an administrator. */
export async function delete${model}(ctx: RequestContext, id: number): Promise<number> {
  return deleteRecord(ctx, ${constant}_WRITES, id, ${constant}_EVENTS.${single}Deleted);
}
`;
}

/** A deleted group's records of the area go with it (src/groups/content.ts; test/group-deletion.test.ts fails without). */
function groupContent(): string {
  return `import { registerGroupContent } from "../groups/content.js";
import { deleteScopeRecords } from "../common/write-path.js";
import { ${constant}_EVENTS, ${constant}_WRITES } from "./service.js";

/** A deleted group's ${plural} go with it, each with its own deleted event. */
export const ${constant}_GROUP_CONTENT = registerGroupContent({
  area: "${name}",
  models: ["${model}"],
  remove: (tx, groupId) => deleteScopeRecords(tx, ${constant}_WRITES, { scope: "group", scopeId: groupId }, ${constant}_EVENTS.${single}Deleted),
});
`;
}

function graphql(): string {
  return `import { builder } from "../graphql/builder.js";
import "./group-content.js";
import { accessEnum } from "../graphql/access.js";
import { tableInput } from "../graphql/fields.js";
import { recordFields } from "../graphql/crud.js";
import { PUBLISH_STATE } from "../common/access.js";
import { scopedPath } from "../common/scopes.js";
import { ${constant}_ACCESS, ${constant}_FIELDS, ${constant}_LIST, create${model}, delete${model}, get${model}, list${model}s, update${model} } from "./service.js";

const ${model}Access = accessEnum(${constant}_ACCESS);

export const ${model}Type = builder.prismaObject("${model}", {
  description: "A ${single} of a scope (the site, a group, a member).",
  fields: (t) => ({
    id: t.exposeID("id"),
    title: t.exposeString("title"),
    scope: t.exposeString("scope"),
    scopeId: t.exposeInt("scopeId"),
    state: t.exposeInt("state", { description: PUBLISH_STATE.description }),
    access: t.field({ type: ${model}Access, description: ${constant}_ACCESS.description, resolve: (record) => record.access }),
    url: t.string({ resolve: (record) => scopedPath(record, "${name}", String(record.id)) }),
    created: t.expose("created", { type: "DateTime" }),
    modified: t.expose("modified", { type: "DateTime" }),
    createdById: t.exposeInt("createdById"),
    createdBy: t.relation("createdBy"),
  }),
});

recordFields("${model}", {
  type: ${model}Type,
  plural: "${plural}",
  read: { description: "One ${single} the caller may see.", resolve: get${model} },
  list: {
    description: "${model} records of one scope the caller may see, searched, sorted and paged like GET /api/${name}/list.",
    spec: ${constant}_LIST,
    resolve: list${model}s,
  },
  create: { scope: "user", input: tableInput("Create${model}Input", ${constant}_FIELDS, "create"), resolve: create${model} },
  update: { scope: "user", input: tableInput("Update${model}Input", ${constant}_FIELDS, "update", "Only the given fields change."), resolve: update${model} },
  remove: { scope: "user", description: "Deletes the ${single}; returns its id.", resolve: delete${model} },
});
`;
}

function testing(): string {
  return `import type { AreaTesting, Documented } from "../../test/areas.js";
import { pick } from "../../test/area-kit.js";
import { ${constant}_ACCESS, ${constant}_FIELDS, ${constant}_LIST } from "./service.js";

// TODO: transcribe by hand from shared/spec/community-platform-api.md; these lists only match the skeleton.
const optional: Documented = {
  created: ["string", false, "now"],
  created_by: ["integer", false, 0],
  state: ["integer", false, 0],
  access: ["integer", false, 0],
  scope: ["string", false, "site"],
  scope_id: ["integer", false, 0],
};

let serial = 0;

export const testing: AreaTesting = {
  area: "${name}",
  fields: ${constant}_FIELDS,
  documented: {
    "POST /${name} 1.0": { title: ["string", true], ...optional },
    "GET /${name}/list 1.0": {
      limit: ["integer", false, 25],
      start: ["integer", false, 0],
      search: ["string", false],
      sort: ["string", false, "created"],
      sort_Dir: ["string", false, "desc"],
      scope: ["string", false, "site"],
      scope_id: ["integer", false, 0],
    },
    "GET /${name}/{id} 1.0": { id: ["integer", true] },
    "PUT /${name}/{id} 1.0": { id: ["integer", true], title: ["string", true], ...optional },
    "DELETE /${name}/{id} 1.0": { id: ["integer", true] },
  },
  async create(server, token, values = {}) {
    serial += 1;
    const response = await server.rest("POST", "/${name}", { token, body: { title: \`${model} \${serial}\`, state: 1, ...values } });
    if (response.status !== 201) throw new Error(\`creating a ${single} failed (\${response.status}): \${JSON.stringify(response.body)}\`);
    return response.body.id;
  },
  contract: {
    table: "${table}",
    list: { path: "/${name}/list", key: "${name}", graphql: "${plural}" },
    spec: ${constant}_LIST,
    searchField: "title",
    read: { path: "/${name}/{id}" },
    update: { method: "PUT", path: "/${name}/{id}", body: (record) => pick(record, ["title", "scope", "scope_id", "state", "access"]) },
    remove: { path: "/${name}/{id}" },
    access: ${constant}_ACCESS,
    states: [
      { name: "published", published: true, values: { state: 1 } },
      { name: "unpublished", published: false, values: { state: 0 } },
    ],
    writers: "users",
    notFound: (id) => \`${model} \${id} not found.\`,
  },
};
`;
}

function rows(): string {
  const prefix = model;
  return `import { ${prefix}CreateDocument, ${prefix}DeleteDocument, ${prefix}ListDocument, ${prefix}ReadDocument, ${prefix}UpdateDocument } from "../generated/${name}.js";
import type { RestOperation, RestParam } from "../types.js";
import { listParams } from "../list-params.js";
import { fieldParams } from "../field-params.js";
import { ${constant}_FIELDS, ${constant}_LIST } from "../../src/${name}/service.js";

const id: RestParam = { name: "id", type: "integer", required: true, description: "${model} identifier.", variable: "id" };

const operations: RestOperation[] = [
  {
    area: "${name}",
    method: "POST",
    path: "/${name}",
    versions: ["1.0"],
    task: "create a ${single}",
    params: fieldParams(${constant}_FIELDS, "create"),
    document: ${prefix}CreateDocument,
    resultField: "create${model}",
    response: { kind: "record" },
    status: 201,
    access: "signed-in user",
  },
  {
    area: "${name}",
    method: "GET",
    path: "/${name}/list",
    versions: ["1.0"],
    task: "list ${plural}",
    params: listParams(${constant}_LIST),
    document: ${prefix}ListDocument,
    resultField: "${plural}",
    response: { kind: "list", key: "${name}" },
    status: 200,
    access: "anyone",
  },
  {
    area: "${name}",
    method: "GET",
    path: "/${name}/{id}",
    versions: ["1.0"],
    task: "read a ${single}",
    params: [id],
    document: ${prefix}ReadDocument,
    resultField: "${single}",
    response: { kind: "record" },
    status: 200,
    access: "anyone",
  },
  {
    area: "${name}",
    method: "PUT",
    path: "/${name}/{id}",
    versions: ["1.0"],
    task: "update a ${single}",
    params: [id, ...fieldParams(${constant}_FIELDS, "replace")],
    document: ${prefix}UpdateDocument,
    resultField: "update${model}",
    response: { kind: "record" },
    status: 200,
    access: "signed-in user",
  },
  {
    area: "${name}",
    method: "DELETE",
    path: "/${name}/{id}",
    versions: ["1.0"],
    task: "delete a ${single}",
    params: [id],
    document: ${prefix}DeleteDocument,
    resultField: "delete${model}",
    response: { kind: "empty" },
    status: 204,
    access: "signed-in user",
  },
];

export default operations;
`;
}

function documents(): string {
  return `# Documents the REST facade runs for /api/${name}. Aliases give REST field names (scope_id, created_by).

fragment ${model}Rest on ${model} {
  id
  title
  scope
  scope_id: scopeId
  state
  access
  url
  created
  created_by: createdById
  modified
}

mutation ${model}Create($input: Create${model}Input!) {
  create${model}(input: $input) {
    ...${model}Rest
  }
}

query ${model}List($search: String, $scope: String, $scopeId: Int, $sort: String, $sortDir: String, $limit: Int, $start: Int) {
  ${plural}(search: $search, scope: $scope, scopeId: $scopeId, sort: $sort, sortDir: $sortDir, limit: $limit, start: $start) {
    items {
      ...${model}Rest
    }
    total
  }
}

query ${model}Read($id: ID!) {
  ${single}(id: $id) {
    ...${model}Rest
  }
}

mutation ${model}Update($id: ID!, $input: Update${model}Input!) {
  update${model}(id: $id, input: $input) {
    ...${model}Rest
  }
}

mutation ${model}Delete($id: ID!) {
  delete${model}(id: $id)
}
`;
}

function prismaModel(): string {
  const pad = (field: string) => field.padEnd(11);
  return `// ${model} records of the ${name} area.

model ${model} {
  ${pad("id")} Int      @id @default(autoincrement())
  ${pad("title")} String
  ${pad("scope")} String   @default("site")
  ${pad("scopeId")} Int      @default(0) @map("scope_id")
  ${pad("state")} Int      @default(0)
  /// 0 public, 1 registered users, 2 private
  ${pad("access")} Int      @default(0)
  ${pad("created")} DateTime @default(now())
  ${pad("createdById")} Int      @map("created_by")
  ${pad("createdBy")} User     @relation(fields: [createdById], references: [id])
  ${pad("modified")} DateTime @default(now()) @updatedAt

  // The list's filter and each whitelisted sort column, ties by id (docs/adding-an-area.md, "Indexes").
  @@index([scope, scopeId, id])
  @@index([scope, scopeId, title, id])
  @@index([scope, scopeId, created, id])
  @@index([scope, scopeId, modified, id])
  // \`search\`: substrings of the title.
  @@index([title(ops: raw("gin_trgm_ops"))], type: Gin, map: "${table}_title_trgm_idx")
  @@map("${table}")
}
`;
}
