/**
 * The area registry: the one shared file a new area edits (besides its prisma/schema/<area>.prisma).
 * Importing an area's `graphql.ts` registers its types, queries and mutations with the builder; the
 * schema (src/graphql/schema.ts) is built after these imports. Everything else of an area is found by
 * its file name: its facade rows (`rest-facade/rows/<area>.ts`, rest-facade/table.ts), its documents
 * (`rest-facade/documents/<area>.graphql`, codegen.ts) and its tests' declarations
 * (`src/<area>/testing.ts`, test/areas.ts).
 *
 * Scope kinds register first (src/scope-kinds.ts): descriptions built with the schema list them.
 */
import "./scope-kinds.js";
import "./users/area.js";
import "./users/graphql.js";
import "./auth/graphql.js";
import "./wiki/area.js";
import "./blog/area.js";
import "./citations/area.js";
import "./groups/graphql.js";
import "./announcements/area.js";
import "./forum/graphql.js";
import "./forum/structure.js";
import "./plugins/area.js";
import "./plugins/graphql.js";
import "./webhooks/graphql.js";
import "./courses/area.js";
import "./courses/outline.js";
// The GraphQL of the areas declared as one (src/common/area.ts), before the group plugins that use their types.
import "./graphql/declared-areas.js";
import "./courses/graphql.js";
// Group plugins last: their twins use the record types of the areas above (src/groups/plugins.ts).
import "./groups/plugin-graphql.js";
import "./activity/graphql.js";
// Subscriptions last: their per-record fields are made from every area's written records.
import "./events/graphql.js";
