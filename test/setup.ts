import { afterEach } from "vitest";
import { takeResponseViolations } from "./openapi-responses.js";

// Every /api response a test server sent during the test must be one the OpenAPI document describes
// (test/openapi-responses.ts): a test that received anything else fails here.
afterEach(() => {
  const found = takeResponseViolations();
  if (found.length) throw new Error(`responses the OpenAPI document does not describe (${found.length}):\n  ${found.join("\n  ")}`);
});
