import type { RestOperation } from "../rest-facade/types.js";
import { documentedIn, testingOf } from "./areas.js";
import type { TestServer } from "./server.js";

/** Parameters a row reads from the query or body (not from its path). */
export const bodyParams = (operation: RestOperation) => operation.params.filter((param) => !operation.path.includes(`{${param.placeholder ?? param.name}}`));

let serial = 0;

/**
 * Valid values for a row's required parameters, so a request passes parameter and service validation.
 * Names with a known format get a fitting value; an area whose rows need more (an existing category, …)
 * adds its names here.
 */
export function plausibleValues(operation: RestOperation): Record<string, unknown> {
  serial += 1;
  const values: Record<string, unknown> = {};
  for (const param of bodyParams(operation).filter((candidate) => candidate.required)) {
    // Required with a documented default (a group's join_policy "open"): the default is valid by definition.
    if (param.default !== undefined && param.default !== "now") values[param.name] = param.default;
    else if (param.type === "integer") values[param.name] = 0;
    else if (param.type === "boolean") values[param.name] = false;
    else if (param.name === "scope") values[param.name] = "site";
    else if (param.name === "username") values[param.name] = `row_user_${serial}`;
    else if (param.name === "email") values[param.name] = `row${serial}@example.test`;
    else if (param.name === "password") values[param.name] = "plausible-password";
    // An event a plugin declares (an undeclared one is 404): the built-in content plugin's.
    else if (param.name === "event") values[param.name] = "content.counts";
    else if (param.name === "cn") values[param.name] = `plausible${serial}x${Date.now().toString(36)}`;
    else values[param.name] = `Plausible ${operation.area} ${serial}`;
  }
  return values;
}

/** Creates a published record of `area` with the area's own fixture (src/<area>/testing.ts), as `token`, and returns its id. */
export async function makeRecord(server: TestServer, token: string, area: string): Promise<number> {
  const testing = testingOf(area);
  if (!testing) throw new Error(`area ${area} has no src/${area}/testing.ts with a record fixture`);
  return testing.create(server, token);
}

/** The row's path with a new record's id in place of `{id}`, or as the row's declaration fills it (AreaTesting.pathFor). */
export async function pathFor(server: TestServer, token: string, operation: RestOperation): Promise<string> {
  const testing = testingOf(documentedIn(operation));
  if (testing?.pathFor) return testing.pathFor(server, token, operation);
  return operation.path.includes("{id}") ? operation.path.replace("{id}", String(await makeRecord(server, token, documentedIn(operation)))) : operation.path;
}
