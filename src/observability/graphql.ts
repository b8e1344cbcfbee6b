import { isTrustedRun } from "../execution/server-context.js";
import { getOperationAST, type ExecutionResult } from "graphql";
import type { Request } from "express";
import type { Plugin } from "graphql-yoga";

/**
 * Names the request after the GraphQL operation it executes ("graphql query WikiPages"), for its log line
 * and metrics. Runs after validation, so only operations of valid documents are named; a request that
 * never executes keeps the route's name (POST /graphql).
 */
export function nameGraphQLOperations(): Plugin {
  return {
    onParams({ params, context }) {
      // Named before anything runs, so a request refused by validation is logged with its operation too.
      const res = (context as { req?: Request } | undefined)?.req?.res;
      if (!res || typeof params.query !== "string") return;
      res.locals.operation = `graphql ${describedOperation(params.query, typeof params.operationName === "string" ? params.operationName : undefined)}`;
    },
    onExecute({ args }) {
      // A REST row's run (src/execution/core.ts runTrusted) is named after its row already.
      if (isTrustedRun(args.contextValue)) return;
      const res = (args.contextValue as { req?: Request }).req?.res;
      if (!res) return;
      const operation = getOperationAST(args.document, args.operationName);
      res.locals.operation = `graphql ${operation?.operation ?? "query"} ${shownName(operation?.name?.value)}`;
    },
  };
}

/**
 * An operation's name as logs and metric labels show it: a GraphQL name of at most 100 characters, else
 * "(unnamed)". The name is the client's to write (operationName, or the document's text): nothing longer or
 * other than a name reaches a log line or a label.
 */
const shownName = (name: string | undefined): string => (name === undefined ? "(anonymous)" : /^[_A-Za-z]\w{0,99}$/.test(name) ? name : "(unnamed)");

/** "query WikiPages" from a document's text without parsing it (it may not parse): the named operation, or the first. */
function describedOperation(query: string, operationName: string | undefined): string {
  const operations = [...query.matchAll(/(?:^|[\s}])(query|mutation|subscription)\b\s*([_A-Za-z][_0-9A-Za-z]*)?/g)].map((found) => ({ kind: found[1]!, name: found[2] }));
  const chosen = operationName ? operations.find((operation) => operation.name === operationName) : operations[0];
  if (chosen) return `${chosen.kind} ${shownName(chosen.name)}`;
  // `{ wikiPages { total } }`: the shorthand query.
  return /^\s*\{/.test(query) ? "query (anonymous)" : `query ${shownName(operationName)}`;
}

/** Codes whose errors are the server's fault: the request's line is logged at error level. */
const SERVER_CODES = new Set(["INTERNAL_SERVER_ERROR", "SERVICE_UNAVAILABLE"]);

/**
 * Keeps the codes of the errors a GraphQL answer carries (`res.locals.graphqlErrors`), so the request's
 * log line says them: a 200 with FORBIDDEN or NOT_FOUND, or a 400 refused by validation, is logged with its
 * codes and operation, never as a plain success (src/observability/http.ts).
 */
export function logGraphQLErrors(): Plugin {
  return {
    onResultProcess({ result, serverContext }) {
      const res = (serverContext as { req?: Request } | undefined)?.req?.res;
      if (!res) return;
      const results = (Array.isArray(result) ? result : [result]) as unknown[];
      const codes = results.flatMap((one) =>
        one && typeof one === "object" && "errors" in one ? ((one as ExecutionResult).errors ?? []).map((error) => String(error.extensions?.code ?? "ERROR")) : [],
      );
      if (codes.length) res.locals.graphqlErrors = [...new Set([...(res.locals.graphqlErrors ?? []), ...codes])];
    },
  };
}

/** Whether the codes include a server fault. */
export const hasServerFault = (codes: readonly string[]) => codes.some((code) => SERVER_CODES.has(code));
