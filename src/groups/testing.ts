import type { AreaTesting, Documented } from "../../test/areas.js";
import { GROUP_FIELDS } from "./service.js";

/**
 * Transcribed by hand from shared/spec/community-platform-api.md ("Groups": 1.0 and 1.1, identical
 * parameters). One deliberate difference: the document types `{id}` integer, but the original's router and
 * this API take the gidNumber or the cn there, so the parameter is a string (docs/decisions.md, "Groups").
 * `limit` of the members list is the general rule's (the document lists only id, list and start).
 */
const create: Documented = {
  cn: ["string", true],
  title: ["string", true],
  tags: ["string", false],
  public_description: ["string", false],
  private_description: ["string", false],
  join_policy: ["string", true, "open"],
  discoverability: ["string", true, "visible"],
};
const { cn: _cn, ...replace } = create;
const fields: Documented = { fields: ["string", false, "gidNumber,cn,description,created,created_by"] };
const id: Documented = { id: ["string", true] };

const documented: Record<string, Documented> = {};
for (const version of ["1.0", "1.1"]) {
  documented[`POST /groups ${version}`] = create;
  documented[`GET /groups/list ${version}`] = {
    limit: ["integer", false, 25],
    start: ["integer", false, 0],
    search: ["string", false],
    sort: ["string", false, "created"],
    sort_Dir: ["string", false, "desc"],
    ...fields,
  };
  documented[`DELETE /groups/{id} ${version}`] = id;
  documented[`GET /groups/{id} ${version}`] = { ...id, ...fields };
  documented[`PUT /groups/{id} ${version}`] = { ...id, ...replace };
}
documented["GET /groups/{id}/members/list 1.0"] = { ...id, list: ["string", false], limit: ["integer", false, 25], start: ["integer", false, 0] };

let serial = 0;

export const testing: AreaTesting = {
  area: "groups",
  fields: GROUP_FIELDS,
  documented,
  async create(server, token, values = {}) {
    serial += 1;
    const body = { cn: `g${serial}t${Date.now().toString(36)}`, title: `Group ${serial}`, join_policy: "open", discoverability: "visible", ...values };
    const response = await server.rest("POST", "/groups", { token, body });
    if (response.status !== 201) throw new Error(`creating a group failed (${response.status}): ${JSON.stringify(response.body)}`);
    return response.body.gidNumber;
  },
};
