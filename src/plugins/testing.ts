import type { AreaTesting } from "../../test/areas.js";
import { contractOf } from "../../test/area-kit.js";
import { PLUGINS } from "./area.js";

let serial = 0;

/**
 * Plugin records are for administrators only, reads and lists too, and have no creator: the contract, totals,
 * plan and hot-path suites (written for records anyone may read when published) do not apply, each skip
 * saying why; src/plugins/plugins.test.ts covers their rules (401/403 for everyone else, nothing changed). The
 * authorization matrix does: every caller × an enabled and a disabled record × every operation, refused to
 * everyone but administrators (401 anonymous, 403 users) and told to administrators only. The table test, the
 * fuzzer and the OpenAPI checks cover the rows from this declaration.
 */
export const testing: AreaTesting = {
  area: "plugins",
  fields: PLUGINS.table,
  /** Transcribed by hand from shared/spec/community-platform-api.md ("Plugins"). */
  documented: {
    "POST /plugins 1.0": {
      name: ["string", true],
      element: ["string", true],
      folder: ["string", true],
      enabled: ["integer", false, 0],
      access: ["integer", false, 1],
      params: ["string", false],
    },
    "GET /plugins/list 1.0": {
      folder: ["string", false],
      enabled: ["integer", false, 1],
      access: ["integer", false, 1],
      limit: ["integer", false, 25],
      start: ["integer", false, 0],
      search: ["string", false],
      sort: ["string", false, "created"],
      sort_Dir: ["string", false, "desc"],
    },
    "GET /plugins/trigger 1.0": {
      event: ["string", true],
      folder: ["string", false],
    },
    // As the document writes it; the row's path says {id} (src/plugins/area.ts), and
    // rest-facade/table.test.ts compares templates whatever their placeholders are called.
    "PUT /plugins/{extension_id} 1.0": {
      extension_id: ["integer", true],
      name: ["string", false],
      element: ["string", false],
      folder: ["string", false],
      enabled: ["integer", false, 0],
      access: ["integer", false, 1],
      params: ["string", false],
    },
    "DELETE /plugins/{id} 1.0": { extension_id: ["integer", true, 0] },
    "GET /plugins/{id} 1.0": { id: ["integer", true] },
  },
  // The rest (rows, list) is the declaration's (contractOf); a PUT sends everything back (an
  // omitted `enabled` would take its default 0 and disable the record: docs/decisions.md, "Plugins").
  contract: contractOf(PLUGINS, {
    table: "plugin_records",
    writers: "administrators",
    notFound: (id) => `Plugin ${id} not found.`,
    list: { idKey: "extension_id" },
    searchField: "name",
    // The declaration's `published` is `enabled` 1; the list answers enabled records unless asked `enabled=0`.
    states: [
      { name: "enabled", published: true, values: { enabled: 1 } },
      { name: "disabled", published: false, values: { enabled: 0 }, listedWith: { enabled: 0 } },
    ],
    skips: {
      contract:
        "written for records anonymous callers and users read (its list and record checks ask as them; its update checks need a PUT with a required text field, and plugin records' PUT requires none); plugin records refuse everyone but administrators (401, 403), which the authorization matrix and src/plugins/plugins.test.ts check, and the facade table test checks the rows' parameters",
      totals: "its totals are asked as users who see some records and not others; plugin records refuse every caller but administrators, who see them all (src/plugins/plugins.test.ts: paging, filters and totals)",
      plans:
        "its generic seed cannot fill plugin_records (the CHECKs on access 1-3, one record per folder and element), and its shapes are asked for anonymous callers and members too, whom the list refuses before any statement; a few records per site",
      "hot paths": "its reads and lists are asked anonymously and as a member, whom plugin records refuse (401, 403); not a hot path: administrators only, a few records per site",
    },
  }),
  /** `{id}` (read, PUT, DELETE): a record made by `create`. */
  async pathFor(server, token, operation) {
    return operation.path.replace(/\{(extension_id|id)\}/, String(await testing.create(server, token)));
  },
  async create(server, token, values = {}) {
    serial += 1;
    const body = { name: `Plugin ${serial}`, folder: "testing", element: `p${serial}x${Date.now().toString(36)}`, enabled: 1, ...values };
    const response = await server.rest("POST", "/plugins", { token, body });
    if (response.status !== 201) throw new Error(`creating a plugin record failed (${response.status}): ${JSON.stringify(response.body)}`);
    return response.body.extension_id as number;
  },
};
