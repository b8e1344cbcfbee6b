import type { AreaTesting } from "../../test/areas.js";
import { PLUGINS } from "./area.js";

let serial = 0;

/**
 * Plugin records are for administrators only, reads and lists too, and have no publishing state or creator:
 * the contract suite and the authorization matrix (written for records anyone may read when published)
 * do not apply; src/plugins/plugins.test.ts covers their rules (401/403 for everyone else, nothing changed).
 * The table test, the fuzzer and the OpenAPI checks cover the rows from this declaration.
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
