import { describe, expect, it } from "vitest";
import { schema } from "../graphql/schema.js";
import { everyWrittenRecords } from "../common/written-records.js";

// `<record>Changed(id)` fields are made at import from the areas' written records: an area whose module
// loads src/events/graphql.ts early (through an import of its own) left every later area without its field.
describe("the <record>Changed subscriptions", () => {
  it("exist for every area's written records that name one", () => {
    const fields = Object.keys(schema.getSubscriptionType()!.getFields());
    const named = everyWrittenRecords().flatMap((written) => (written.changedSubscription ? [written.changedSubscription] : []));
    expect(named.length).toBeGreaterThan(5);
    expect(named.filter((name) => !fields.includes(name))).toEqual([]);
  });
});
