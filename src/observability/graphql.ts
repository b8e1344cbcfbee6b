import { getOperationAST } from "graphql";
import type { Request } from "express";
import type { Plugin } from "graphql-yoga";

/**
 * Names the request after the GraphQL operation it executes ("graphql query WikiPages"), for its log line
 * and metrics. Runs after validation, so only operations of valid documents are named; a request that
 * never executes keeps the route's name (POST /graphql).
 */
export function nameGraphQLOperations(): Plugin {
  return {
    onExecute({ args }) {
      const res = (args.contextValue as { req?: Request }).req?.res;
      if (!res) return;
      const operation = getOperationAST(args.document, args.operationName);
      res.locals.operation = `graphql ${operation?.operation ?? "query"} ${operation?.name?.value ?? "(anonymous)"}`;
    },
  };
}
