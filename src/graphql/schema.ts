import { GraphQLSchema } from "graphql";
import { builder } from "./builder.js";
// Importing the registry registers every area's types, queries and mutations with the builder.
import "../areas.js";
import { assertEveryAreaHasGraphql } from "./area.js";

// An area declared after src/areas.ts made the declared areas' GraphQL would have none: refused, not silent.
assertEveryAreaHasGraphql();

/** What every operation may send beside its document (src/execution/conditions.ts), as GraphiQL's docs show it. */
const DESCRIPTION = `Hubgraph's GraphQL API; the REST API under /api runs the same operations.

Safe retries: a signed-in request that runs a mutation may send an Idempotency-Key header (1 to 255 visible ASCII characters, kept a day). The request is then all or nothing: its writes and its answer, stored with the key, commit together, and an answer with any error undoes every write and keeps no key. The same key with the same body gets the stored answer again (header Idempotent-Replayed: true); with another body it is HTTP 422; a retry racing the first request is 409 on PostgreSQL (it waits for the first to commit) and gets the replay on the embedded database. Keys belong to their caller, who holds at most 1,000 at a time with 16 MB of answers (then 429); an answer larger than 1 MB is not kept (400, nothing written), and a mutation that answers a secret shown once (createWebhookEndpoint, rotateWebhookEndpointSecret, registerOAuthClient) or runs plugin handlers apart from it (triggerPluginEvent) takes no key (400).

Conditional writes: If-Match (an ETag) applies to a document with exactly one mutation of one record: an update or delete of a record (updateWikiPage, deleteBlogEntry, a group's or the forum's own, …): the change is made only if the record is still at that version, else the request is HTTP 412 (PRECONDITION_FAILED) and nothing changes. On any other document If-Match is HTTP 400 naming the header. An answer that is one record (a single root field of a record type) carries that record's version as its ETag.`;

const built = builder.toSchema({ sortSchema: false });
export const schema = new GraphQLSchema({ ...built.toConfig(), description: DESCRIPTION });
