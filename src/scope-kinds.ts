/**
 * The scope kind list: importing this registers every kind the application knows (src/common/scope-kinds.ts),
 * each declared by whatever owns its scope ids. src/areas.ts imports it before any area, and the CLI
 * (src/cli/context.ts) too, so every request context finds them. A new kind is one declaration in its
 * owner's folder (`src/<area>/scope.ts`) and one import line here; the order is the order descriptions list
 * them in.
 */
import "./scopes/site.js";
import "./users/scope.js";
import "./groups/scope.js";
import "./scopes/project.js";
import "./courses/scope.js";
