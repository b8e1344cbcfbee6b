import type { DocumentNode } from "graphql";
import type { Config } from "../src/config.js";
import type { RestParam, RestResponse } from "../src/common/rest-vocabulary.js";

/** One documented operation: a row of the facade table. */
export interface RestOperation {
  /** Area (first path segment), e.g. `wiki`. */
  area: string;
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Path below /api with `{placeholders}`, as in the API document. */
  path: string;
  /** API versions this row answers. */
  versions: string[];
  /** The document's task description. */
  task: string;
  params: RestParam[];
  /** Named GraphQL operation run in-process (a typed document from rest-facade/generated). */
  document: DocumentNode;
  /** The root field of the result that holds the record or list. */
  resultField: string;
  response: RestResponse;
  /** Success status. */
  status: 200 | 201 | 204;
  /**
   * A partial update, derived from a PUT row (table.ts): parameters the caller leaves out keep their
   * values, so no default applies, and JSON `null` is refused unless the parameter `clears`.
   */
  partial?: boolean;
  /**
   * Who may call it: the descriptions and OpenAPI say it, and a row that needs a user answers an anonymous
   * caller 401 before reading its parameters (router.ts, `refusesAnonymous`). The services enforce it on
   * their own all the same (GraphQL, and callers signed in who may not); rest-facade/table.test.ts holds every
   * row's declaration to what its service answers an anonymous caller.
   */
  access: "anyone" | "signed-in user" | "administrator";
  /**
   * Whether an anonymous caller may reach the service although `access` is not "anyone", given the
   * server's configuration: the service's own rule, imported (POST /members: `anyoneMayCreateAccounts`).
   * Otherwise a row whose access is not "anyone" answers an anonymous caller 401 before any parameter is
   * checked (router.ts, `refusesAnonymous`): a stranger is not told how to shape a call it may not make.
   */
  opensToAnonymous?(config: Config): boolean;
  /**
   * The tests' declaration (`src/<folder>/testing.ts` or `<name>.testing.ts`, test/areas.ts) that transcribes
   * this row and makes its records, when it is not the row's area: the group plugin rows live under
   * /groups, and are documented by `group-plugins` (src/groups/plugins.testing.ts).
   */
  documentedIn?: string;
}
