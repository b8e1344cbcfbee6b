import { execute, getOperationAST, getVariableValues, type DocumentNode, type ExecutionResult, type GraphQLSchema } from "graphql";
import { compileQuery, isCompiledQuery } from "graphql-jit";

/**
 * The REST facade's fixed documents, compiled to JavaScript once (graphql-jit) instead of interpreted on
 * every request: graphql-js re-reads the document for each field of each record, ≈10 % of a list answer's
 * CPU; compiled, a REST list of 25 records costs ≈25 % less server CPU in all (docs/performance.md).
 *
 * Not for documents sent to /graphql: graphql-jit resolves nested fields in other ticks than graphql-js,
 * so DataLoader batches split (test/contract.test.ts counted 11 statements for a nested page instead of 7).
 * The facade's documents are checked by that same test, row by row.
 * Resolvers, scalars and errors are the schema's own either way; variables are checked by graphql-js
 * first, so a bad variable is refused with graphql-js's own error (which src/app.ts turns into a 400
 * naming the input field), not graphql-jit's differently worded one.
 */


export type RunDocument = (variables: Record<string, unknown>, context: unknown) => Promise<ExecutionResult> | ExecutionResult;

/** A fixed document (a REST facade row's), compiled now; one graphql-jit cannot compile runs through `execute`. */
export function compiledDocument(schema: GraphQLSchema, document: DocumentNode, operationName?: string | null): RunDocument {
  const compiled = compileQuery(schema, document, operationName ?? undefined);
  // graphql-jit compiled the document, so it has this operation; its variables, found once.
  const definitions = getOperationAST(document, operationName)?.variableDefinitions ?? [];
  if (isCompiledQuery(compiled)) {
    return (variables, context) => {
      const { errors } = getVariableValues(schema, definitions, variables, { maxErrors: 50 });
      if (errors) return { errors };
      return compiled.query(undefined, context, variables) as Promise<ExecutionResult> | ExecutionResult;
    };
  }
  return (variables, context) => execute({ schema, document, operationName, variableValues: variables, contextValue: context });
}
