import type { AreaTesting } from "../../test/areas.js";

let serial = 0;

/** Accounts: our own rows (the contract's Authentication), not in the API document, so nothing is transcribed. */
export const testing: AreaTesting = {
  area: "members",
  documented: {},
  async create(server, token, values = {}) {
    serial += 1;
    const body = { username: `member_fixture_${serial}`, email: `member${serial}@example.test`, password: `pw-member-fixture-${serial}-secret`, name: `Member ${serial}`, ...values };
    const response = await server.rest("POST", "/members", { token, body });
    if (response.status !== 201) throw new Error(`creating an account failed (${response.status}): ${JSON.stringify(response.body)}`);
    return response.body.id;
  },
};
