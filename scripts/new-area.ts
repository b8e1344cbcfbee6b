// npm run area:new -- <name> [--model <Model>] [--plural <field>] [--out <dir>]: writes a working area
// (docs/adding-an-area.md): its declaration src/<name>/area.ts (defineArea: model, policy, fields, list,
// events, REST operations), the API transcription the shared tests read (src/<name>/testing.ts), its Prisma
// model, the registry line in src/areas.ts and the back-relation on User; then generates the client and
// writes the migration (npm run db:migration, plus the value checks and the versions trigger). With --out
// it writes the three new files there and prints the rest instead. Refuses a name that is an area already.
import { execFileSync } from "node:child_process";
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
  [`src/${name}/area.ts`]: declaration(),
  [`src/${name}/testing.ts`]: testing(),
  [`prisma/schema/${name}.prisma`]: prismaModel(),
};

// An area is its folder and its model: either already there (in this checkout, where the area would land,
// or under --out) means the name is taken.
const taken = [...new Set([repository, out])].flatMap((root) =>
  [`src/${name}`, `prisma/schema/${name}.prisma`].map((file) => path.join(root, file)).filter((file) => fs.existsSync(file)),
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

/** The registry line, before the line that makes the declared areas' GraphQL. */
const REGISTRY = "src/areas.ts";
const REGISTRY_ANCHOR = 'import "./graphql/declared-areas.js";';
const registryLine = `import "./${name}/area.js";`;
/** The back-relation Prisma needs on User, after its last list relation. */
const USERS = "prisma/schema/users.prisma";
const backRelation = `  ${plural.padEnd(17)} ${model}[]`;
/** What the migration adds after Prisma's SQL and the counter triggers db:migration writes. */
const migrationTail = `
-- The documented values only, and the list versions of each scope (docs/adding-an-area.md, "Indexes, counters").
ALTER TABLE "${table}" ADD CONSTRAINT "${table}_access_check" CHECK ("access" IN (0, 1, 2));
ALTER TABLE "${table}" ADD CONSTRAINT "${table}_state_check" CHECK ("state" IN (0, 1));
SELECT list_versions_track('${table}', 'scope', 'scope_id');
`;

if (out !== repository) {
  console.log(`
--out: the shared files are left as they are. In the checkout the area lands in:
  1. ${REGISTRY}: ${registryLine} (before ${REGISTRY_ANCHOR})
  2. ${USERS}, model User:
${backRelation}
  3. docs/events.md: the events ${name}.${single}Created, ${single}Updated, ${single}Deleted
  4. npx prisma generate && npm run db:migration -- add_${name}, and append to the migration:${migrationTail}`);
  process.exit(0);
}

const registry = fs.readFileSync(path.join(repository, REGISTRY), "utf8");
if (!registry.includes(REGISTRY_ANCHOR)) throw new Error(`${REGISTRY} has no line ${REGISTRY_ANCHOR}`);
fs.writeFileSync(path.join(repository, REGISTRY), registry.replace(REGISTRY_ANCHOR, `${registryLine}\n${REGISTRY_ANCHOR}`));
console.log(`added ${registryLine} to ${REGISTRY}`);

const users = fs.readFileSync(path.join(repository, USERS), "utf8");
const relations = [...users.matchAll(/^ {2}\w+\s+\w+\[\]$/gm)];
const last = relations.at(-1);
if (!last) throw new Error(`${USERS}: no list relation on User to add the back-relation after`);
const at = last.index! + last[0].length;
fs.writeFileSync(path.join(repository, USERS), `${users.slice(0, at)}\n${backRelation}${users.slice(at)}`);
console.log(`added the back-relation ${plural} to model User in ${USERS}`);

// Its events in the catalogue's document (test/write-path.test.ts holds it to the declarations), after the last event row.
const EVENTS_DOC = "docs/events.md";
const eventsDoc = fs.readFileSync(path.join(repository, EVENTS_DOC), "utf8");
const lastEvent = [...eventsDoc.matchAll(/^\| `[a-z][a-zA-Z]*\.[a-zA-Z]+` \|.*\|$/gm)].at(-1);
if (!lastEvent) throw new Error(`${EVENTS_DOC}: no event table to add the area's events to`);
const eventRows = [
  [`${single}Created`, `A ${single} was created.`],
  [`${single}Updated`, `A ${single}'s fields changed; \`changed\` names them.`],
  [`${single}Deleted`, `A ${single} was deleted.`],
].map(([type, description]) => `| \`${name}.${type}\` | readers | \`id\`, \`title\` | ${description} |`);
const eventsAt = lastEvent.index! + lastEvent[0].length;
fs.writeFileSync(path.join(repository, EVENTS_DOC), `${eventsDoc.slice(0, eventsAt)}\n${eventRows.join("\n")}${eventsDoc.slice(eventsAt)}`);
console.log(`added the events of ${name} to ${EVENTS_DOC}`);

const run = (command: string, args: string[]) => execFileSync(command, args, { cwd: repository, stdio: ["ignore", "pipe", "inherit"], encoding: "utf8" });
run("npx", ["prisma", "generate"]);
console.log(run("npx", ["tsx", "scripts/new-migration.ts", `add_${name}`]).trim());
const migrations = path.join(repository, "prisma", "migrations");
const written = fs.readdirSync(migrations).filter((entry) => entry.endsWith(`_add_${name}`)).sort().at(-1);
if (!written) throw new Error(`db:migration wrote no migration add_${name}`);
fs.appendFileSync(path.join(migrations, written, "migration.sql"), migrationTail);
console.log(`appended the value checks and list_versions_track to prisma/migrations/${written}/migration.sql

The area answers on /api/${name} and in GraphQL (${single}, ${plural}, create${model}, …). Left to you:
  - src/${name}/testing.ts: replace \`documented\` with the API document's parameter lists, transcribed by hand;
    then make the declaration and the model say what the document says (a field: one line in the
    declaration's \`fields\`, its column and its migration);
  - npm run codegen (the schema's SDL), npm run db:check, npm test.`);

function declaration(): string {
  return `import { z } from "zod";
import { accessLevels, PUBLISH_STATE } from "../common/access.js";
import { defineArea } from "../common/area.js";
import { accessField, createdByField, createdField, stateField } from "../common/fields.js";
import { DEFAULT_SCOPE } from "../common/list-spec.js";
import { scopeKindField } from "../common/scope-kinds.js";
import { scopedPath } from "../common/scopes.js";

/** ${model} access levels, as the API document numbers them. */
export const ${constant}_ACCESS = accessLevels("${model}Access", [
  { value: 0, level: "public" },
  { value: 1, level: "registered" },
  { value: 2, level: "private" },
], 0);

/** The ${name} area, declared once (src/common/area.ts): the kit makes its service, GraphQL and REST rows from it. */
export const ${constant} = defineArea({
  area: "${name}",
  model: "${model}",
  plural: "${plural}",
  label: "${model}",
  description: "A ${single} of a scope (the site, a group, a member).",
  // The contract's access rule; published = state 1.
  policy: { scoped: true, published: { field: "state", value: 1 }, access: ${constant}_ACCESS, creator: "createdById" },
  fields: {
    title: { type: "String", rule: z.string().trim().min(1, "must not be empty").max(255), required: true, rest: { description: "Title." } },
    created: createdField,
    createdBy: createdByField,
    state: stateField,
    access: accessField(${constant}_ACCESS),
    scope: { type: "String", rule: scopeKindField, description: 'Default "site".', default: DEFAULT_SCOPE.scope, rest: { description: "Scope.", privacy: true } },
    scopeId: { type: "Int", rule: z.number().int().min(0), description: "Default 0.", default: DEFAULT_SCOPE.scopeId, rest: { description: "Scope ID.", privacy: true } },
  },
  // The record as GraphQL and REST show it, in the REST answer's order.
  shown: {
    id: true,
    title: true,
    scope: true,
    scopeId: true,
    state: PUBLISH_STATE.description,
    access: { levels: ${constant}_ACCESS, description: ${constant}_ACCESS.description },
    url: { type: "String", resolve: (record: { id: number; scope: string; scopeId: number }) => scopedPath(record, "${name}", String(record.id)) },
    created: true,
    createdById: { rest: "created_by" },
    modified: true,
    createdBy: { relation: true },
  },
  list: {
    description: "${model} records of one scope the caller may see, searched, sorted and paged like GET /api/${name}/list.",
    sortColumns: { id: "id", title: "title", created: "created", modified: "modified" },
    defaults: { sort: "created", sortDir: "desc", limit: 25 },
    search: { in: "title", fields: ["title"] },
  },
  read: { description: "One ${single} the caller may see." },
  writes: {
    by: "users",
    forbidden: "Only the creator, a group manager or an administrator can change this ${single}.",
    names: ["title"],
    update: "Only the given fields change.",
    remove: "Deletes the ${single}; returns its id.",
  },
  events: {
    ${single}Created: "A ${single} was created.",
    ${single}Updated: "A ${single}'s fields changed; \`changed\` names them.",
    ${single}Deleted: "A ${single} was deleted.",
  },
  rest: {
    versions: ["1.0"],
    create: { path: "/${name}", task: "create a ${single}" },
    list: { path: "/${name}/list", task: "list ${plural}", key: "${name}" },
    read: { path: "/${name}/{id}", task: "read a ${single}" },
    replace: { path: "/${name}/{id}", task: "update a ${single}" },
    remove: { path: "/${name}/{id}", task: "delete a ${single}" },
  },
});
`;
}

function testing(): string {
  return `import type { AreaTesting, Documented } from "../../test/areas.js";
import { contractOf } from "../../test/area-kit.js";
import { ${constant} } from "./area.js";

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
  fields: ${constant}.table,
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
  // The rest (rows, list, access levels) is the declaration's (contractOf).
  contract: contractOf(${constant}, {
    table: "${table}",
    writers: "users",
    notFound: (id) => \`${model} \${id} not found.\`,
    searchField: "title",
    states: [
      { name: "published", published: true, values: { state: 1 } },
      { name: "unpublished", published: false, values: { state: 0 } },
    ],
  }),
};
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
