import type { ParameterProblem } from "../common/errors.js";

/**
 * The input field a variable-coercion error is about, named as service errors name it (`access` for
 * `input.access`), so a bad enum value or type is reported like any other bad parameter.
 */
export function variableProblem(message: string): ParameterProblem | null {
  // graphql-js: Variable "$input" got invalid value 9 at "input.access"; <reason>  (or "input.tags[1]",
  // or no "at" for the variable itself). The reason is graphql-js's own sentence.
  const match = /^Variable "\$(\w+)" got invalid value .*?(?: at "([^"]+)")?; ([^;]*)$/s.exec(message);
  if (!match) return null;
  const [, variable, path, reason] = match;
  const field = path?.split(".")[1]?.replace(/\[\d+\]$/, "");
  return { parameter: field ?? variable!, message: reason!.trim() };
}
