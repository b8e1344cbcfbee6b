import type { AreaTesting, Documented } from "../../test/areas.js";
import type { TestServer } from "../../test/server.js";
import type { RestOperation } from "../../rest-facade/types.js";
import { testing as blog } from "../blog/testing.js";
import { testing as wiki } from "../wiki/testing.js";
import { testings as forum } from "../forum/testing.js";

/**
 * The group plugin rows (rest-facade/rows/group-plugins.ts) for the shared tests. The API document
 * (Groups) gives every plugin-record operation `id` (the group, gidNumber or cn) and `active` (the plugin,
 * here the path segment itself), list `limit` 25 and `start` 0, read/update/delete `record_id`; the body
 * fields of create and update are "not shown": each plugin takes its area's documented write parameters
 * but `scope`/`scope_id` (the path says where the record lives), transcribed from the areas' own lists.
 */
const group: Documented = { id: ["string", true] };
const recordId: Documented = { record_id: ["integer", true] };
const page: Documented = { limit: ["integer", false, 25], start: ["integer", false, 0] };

const withoutScope = (documented: Documented, also: string[] = []): Documented =>
  Object.fromEntries(Object.entries(documented).filter(([name]) => !["scope", "scope_id", ...also].includes(name)));

/** Announcements are documented nowhere but here (the original's plugin: title, content, priority, sticky, publishing window). */
const announcement: Documented = {
  title: ["string", true],
  content: ["string", true],
  priority: ["integer", false, 0],
  sticky: ["integer", false, 0],
  publish_up: ["string", false, "now"],
  publish_down: ["string", false],
  state: ["integer", false, 1],
  access: ["integer", false, 0],
  created: ["string", false, "now"],
  created_by: ["integer", false, 0],
};

/**
 * Each plugin's create and replace parameters, as its area documents them. Read when first asked, not when
 * this module loads: test/areas.ts loads every declaration at once, and an area's may still be loading.
 */
function documentedRows(): Record<string, Documented> {
  const writes: Record<string, { create: Documented; replace: Documented }> = {
    announcements: { create: announcement, replace: announcement },
    blog: { create: withoutScope(blog.documented["POST /blog 1.0"]!), replace: withoutScope(blog.documented["PUT /blog/{id} 1.0"]!, ["id"]) },
    wiki: { create: withoutScope(wiki.documented["POST /wiki 1.0"]!), replace: withoutScope(wiki.documented["PUT /wiki/{id} 1.0"]!, ["id"]) },
    // The forum documents no PUT: a group forum post's replace takes the create's fields a post may change
    // (not its category, thread or parent), the content required as on create.
    // The group's forum posts in the group's default category (the create row leaves category_id out).
    forum: {
      create: withoutScope(forumPosts().documented["POST /forum 1.0"]!, ["category_id"]),
      replace: { ...withoutScope(forumPosts().documented["POST /forum 1.0"]!, ["category_id", "thread", "parent"]), comment: ["string", false] },
    },
  };
  return Object.fromEntries(
    Object.entries(writes).flatMap(([plugin, fields]) => [
      [`POST /groups/{group}/${plugin} 1.0`, { ...group, ...fields.create }],
      [`GET /groups/{group}/${plugin}/list 1.0`, { ...group, ...page }],
      [`GET /groups/{group}/${plugin}/{record_id} 1.0`, { ...group, ...recordId }],
      // As the document writes them: {id} here, where the rows' paths say {record_id} throughout (OpenAPI 3.1
      // forbids templates differing only in a placeholder's name); rest-facade/table.test.ts compares templates
      // whatever their placeholders are called.
      [`PUT /groups/{group}/${plugin}/{id} 1.0`, { ...group, ...recordId, ...fields.replace }],
      [`DELETE /groups/{group}/${plugin}/{id} 1.0`, { ...group, ...recordId }],
    ]),
  );
}

/** A published, public record of each plugin, as its create row takes it. */
const plausible: Record<string, (serial: number) => Record<string, unknown>> = {
  announcements: (serial) => ({ title: `Announcement ${serial}`, content: "Something happened." }),
  blog: (serial) => ({ title: `Group entry ${serial}`, content: "Some content.", state: 1 }),
  wiki: (serial) => ({ title: `Group page ${serial}`, pagetext: "Some text.", state: 1 }),
  forum: (serial) => ({ title: `Group thread ${serial}`, comment: "Some words.", state: 1 }),
};

const forumPosts = () => forum.find((testing) => testing.area === "forum")!;

let serial = 0;
const groups = new WeakMap<TestServer, string>();

/**
 * The visible group the shared tests' plugin records live in: one per test server, made straight in the
 * database, and made again when a test deleted it (the fuzzer's DELETE /groups/{id} cases guess small ids,
 * and this group's is one of them).
 */
export async function fixtureGroup(server: TestServer): Promise<string> {
  const known = groups.get(server);
  if (known && (await server.app.db.prisma.group.findUnique({ where: { cn: known }, select: { cn: true } }))) return known;
  serial += 1;
  const created = await server.app.db.prisma.group.create({ data: { cn: `plugins${Date.now()}x${serial}`, title: "Plugin records" } });
  groups.set(server, created.cn);
  return created.cn;
}

/** Makes a record of `plugin` in the group `cn` through its plugin row, as `token`; its id. */
export async function createPluginRecord(server: TestServer, token: string, cn: string, plugin: string, values: Record<string, unknown> = {}): Promise<number> {
  serial += 1;
  const response = await server.rest("POST", `/groups/${cn}/${plugin}`, { token, body: { ...plausible[plugin]!(serial), ...values } });
  if (response.status !== 201) throw new Error(`creating a ${plugin} record of group ${cn} failed (${response.status}): ${JSON.stringify(response.body)}`);
  return response.body.id;
}

const pluginOf = (operation: RestOperation) => operation.path.split("/")[3]!;

let documented: Record<string, Documented> | undefined;

export const testing: AreaTesting = {
  area: "group-plugins",
  get documented() {
    return (documented ??= documentedRows());
  },
  /** An announcement of the fixture group (an administrator's token writes in any group). */
  async create(server, token, values = {}) {
    return createPluginRecord(server, token, await fixtureGroup(server), "announcements", values);
  },
  async pathFor(server, token, operation) {
    const cn = await fixtureGroup(server);
    let path = operation.path.replace("{group}", cn);
    for (const placeholder of ["{id}", "{record_id}"]) {
      if (path.includes(placeholder)) path = path.replace(placeholder, String(await createPluginRecord(server, token, cn, pluginOf(operation))));
    }
    return path;
  },
};
