import type { Request, Response } from "express";
import { GraphQLError, type DocumentNode, type ExecutionArgs, type ExecutionResult, type GraphQLSchema } from "graphql";
import { useEngine } from "@envelop/core";
import { createYoga, type Plugin, type YogaServerInstance } from "graphql-yoga";
import type { Config } from "../config.js";
import { contextWith, type RequestContext } from "../common/context.js";
import { ApiError } from "../common/errors.js";
import { outboxWritten } from "../common/outbox.js";
import { recordEtag } from "../common/write-path.js";
import { clientFaultFromDatabase, databaseFailure } from "../common/database-errors.js";
import { executeCompiledWhenRepeated } from "../graphql/compiled.js";
import { graphqlRequestChecks } from "../graphql/http.js";
import { introspectionPlugin, queryLimitPlugins } from "../graphql/limits.js";
import { variableProblem } from "../graphql/variable-problem.js";
import { graphiqlOptions, renderGraphiQLPage } from "../graphiql/page.js";
import { logGraphQLErrors, nameGraphQLOperations } from "../observability/graphql.js";
import type { ServerContext, TrustedRun } from "./server-context.js";
import { answersOneRecord, CONDITION_HEADERS, conditionsFor, rememberedExecution, type ConditionalRequest } from "./conditions.js";

/**
 * The one execution core (docs/architecture.md): every operation — a document sent to /graphql, or a REST
 * row's trusted document — runs through `executeOperation` inside one ordered plugin chain (yoga's envelop):
 * request checks, limits (nesting, depth, aliases, tokens, cost, answer size: per request on both
 * surfaces), introspection, operation naming, error logging, metrics, error masking, and the write
 * conditions (Idempotency-Key, If-Match, ETag: src/execution/conditions.ts). A surface only reads its
 * request into a document and variables, and renders the result.
 */

/** The context an operation's resolvers get: the request's (src/common/context.ts) over the server's. */
type OperationContext = RequestContext & ServerContext & { params?: { query?: unknown; variables?: unknown; operationName?: unknown } };

export interface ExecutionCoreOptions {
  schema: GraphQLSchema;
  config: Config;
  /** The request context of a request (src/app.ts). */
  contextFor(req: Request): RequestContext;
  /** Unexpected errors, with the request's id. */
  logError(line: string, error?: unknown): void;
  /** Plugins that observe every operation (metrics), last in the chain before masking. */
  observers?: Plugin[];
}

export interface ExecutionCore {
  /** /graphql's handler. */
  yoga: YogaServerInstance<ServerContext, RequestContext>;
  /**
   * Runs a trusted document (a REST row's, parsed, checked against the schema and the limits, and
   * compiled at start-up) through the same chain as a /graphql request: validated (cached per document),
   * limited, executed, masked, observed. `row` names the row and its version.
   */
  runTrusted(run: { req: Request; res: Response; document: DocumentNode; source: string; variables: Record<string, unknown>; row: string }): Promise<ExecutionResult>;
}

export function executionCore({ schema, config, contextFor, logError, observers = [] }: ExecutionCoreOptions): ExecutionCore {
  const yoga = createYoga<ServerContext, RequestContext>({
    schema,
    graphqlEndpoint: "/graphql",
    // Served from the installed package, not yoga's CDN page: works without internet access.
    graphiql: graphiqlOptions,
    renderGraphiQL: renderGraphiQLPage,
    context: ({ req }) => contextFor(req),
    logging: false,
    plugins: [
      // Documents run again are compiled (graphql-jit), else graphql-js's own execute; yoga's default executor
      // (@graphql-tools/executor) adds @defer/@stream handling the schema does not use (docs/performance.md).
      useEngine({ execute: ((args: ExecutionArgs) => executeOperation(args, logError)) as never }),
      trustedDocuments(),
      graphqlRequestChecks(),
      ...queryLimitPlugins(),
      introspectionPlugin(config.introspection, (context) => Boolean((context as { req?: Request }).req?.viewer?.user)),
      nameGraphQLOperations(),
      logGraphQLErrors(),
      ...observers,
    ],
    // CORS is the express middleware (src/app.ts), one allow-list for /api and /graphql alike.
    cors: false,
    // The REST error body's text for a 500 too (app.ts errorHandler), not yoga's "Unexpected error.".
    maskedErrors: { errorMessage: "Internal server error.", maskError: (error, message) => maskError(error, message, logError) },
  });

  /** The rows' documents that passed the chain's validation (runTrusted). */
  const validatedRows = new WeakSet<DocumentNode>();
  return {
    yoga,
    async runTrusted({ req, res, document: rowDocument, source, variables, row }) {
      const trusted: TrustedRun = { row, payload: req.body ?? null, document: rowDocument };
      const enveloped = yoga.getEnveloped({ req, res, trusted } satisfies ServerContext as never);
      // Through the chain's parse, so what observes it (the metrics' operation labels) sees REST rows too;
      // it answers the row's own DocumentNode (`trustedDocuments`), never parsing it again, so the validation
      // cache (a WeakMap by document) and the compiled function are found by it whatever clients send.
      const document = enveloped.parse(source);
      // Validated through the chain on its first run only: a row's document and the schema are fixed, and no
      // rule of the chain reads a row's caller (the introspection rule's fields are in no row), so the answer
      // cannot change; asking again cost 40 µs of a REST write's CPU (yoga's cache keys on every rule's name).
      if (!validatedRows.has(document)) {
        const invalid = enveloped.validate(enveloped.schema, document);
        if (invalid.length) return { errors: invalid };
        validatedRows.add(document);
      }
      const contextValue = await enveloped.contextFactory();
      return (await enveloped.execute({ schema: enveloped.schema, document, variableValues: variables, contextValue })) as ExecutionResult;
    },
  };
}

/**
 * A REST row's parse answers the row's own DocumentNode, parsed at start-up: set before anything parses
 * (so nothing does), and again once yoga's parse cache (a plugin after this one) has answered, so neither
 * a miss (an evicted text) nor a client's copy of the text puts another object in its place.
 */
function trustedDocuments(): Plugin {
  return {
    onParse({ context, setParsedDocument }) {
      const trusted = (context as Partial<ServerContext>).trusted;
      if (!trusted) return;
      setParsedDocument(trusted.document);
      return ({ replaceParseResult }) => replaceParseResult(trusted.document);
    },
  };
}

/**
 * The engine's execute: the operation's write conditions read from its request (conditionsFor), then the
 * document run — compiled once repeated (src/graphql/compiled.ts) — with a context of its own carrying
 * them; a keyed operation in its key's transaction (rememberedExecution). The answer's ETag and
 * Idempotent-Replayed headers are set here, for both surfaces.
 */
function executeOperation(args: ExecutionArgs, logError: ExecutionCoreOptions["logError"]): Promise<ExecutionResult> | ExecutionResult {
  const context = args.contextValue as OperationContext;
  const { res } = context;
  let conditions;
  try {
    conditions = conditionsFor(args.schema, args.document, args.operationName, conditionalRequest(context), context.viewer);
  } catch (error) {
    if (error instanceof ApiError) return { errors: [error] };
    throw error;
  }
  const operation: OperationContext = contextWith(context, { conditions });
  const answered = (result: ExecutionResult) => {
    if (!result.errors?.length && conditions.version !== undefined && answersOneRecord(args.schema, args.document, args.operationName)) {
      res?.set("ETag", recordEtag(conditions.version));
    }
    return result;
  };
  const key = conditions.idempotencyKey;
  if (!key) {
    // Deferred work (afterCommit) runs once the operation is over: every write transaction it opened has ended.
    const done = (result: ExecutionResult) => (operation.conditions.committed((error) => logError("work after an operation's commit failed", error)), answered(result));
    const result = executeCompiledWhenRepeated({ ...args, contextValue: operation });
    return result instanceof Promise ? result.then(done) : done(result as ExecutionResult);
  }
  return rememberedExecution(context.db, context.viewer.user!.id, key, conditions, async (tx) =>
    (await executeCompiledWhenRepeated({ ...args, contextValue: contextWith(operation, { tx }) })) as ExecutionResult,
  ).then(
    ({ result, replayed, committed, version }) => {
      if (replayed) {
        res?.set("Idempotent-Replayed", "true");
        // The first answer's ETag, as the first answer carried it.
        if (version !== undefined && answersOneRecord(args.schema, args.document, args.operationName)) res?.set("ETag", recordEtag(version));
        return result;
      }
      if (!committed) return result;
      outboxWritten(context.db);
      operation.conditions.committed((error) => logError("work after an operation's commit failed", error));
      return answered(result);
    },
    (error: unknown) => {
      // The key's transaction failed in the database (src/db names no status): the contract's error for it.
      const failure = error instanceof ApiError ? error : databaseFailure(error);
      if (failure) return { errors: [failure] };
      throw error;
    },
  );
}

/** The request as the conditions read it: a REST row's body, or the GraphQL parameters, is what its fingerprint covers. */
function conditionalRequest(context: OperationContext): ConditionalRequest {
  const { req, trusted, params } = context;
  return {
    method: req?.method ?? "POST",
    url: req?.originalUrl ?? "",
    header: (name) => req?.get(name),
    payload: trusted ? { row: trusted.row, body: trusted.payload } : { query: params?.query ?? null, variables: params?.variables ?? null, operationName: params?.operationName ?? null },
    lenient: Boolean(trusted),
  };
}

/**
 * An error in place of `error`, where the operation met it. graphql-jit's errors (a compiled document's)
 * carry their source and positions, not nodes, so all three are kept: the answer's locations are the same
 * on every run of a document, compiled or not.
 */
function locatedLike(error: GraphQLError, message: string, originalError: Error, extensions?: GraphQLError["extensions"]): GraphQLError {
  return new GraphQLError(message, { nodes: error.nodes, source: error.source, positions: error.positions, path: error.path, originalError, extensions });
}

/**
 * The one error mask: services' ApiErrors and the client's own request errors are shown; a database error
 * the client caused is its 4xx; anything else is logged with the request's id and answered as a 500.
 */
function maskError(error: unknown, message: string, logError: ExecutionCoreOptions["logError"]): Error {
  // A database busy or lost during a commit (src/db names no status) is its ApiError, where the operation met it.
  const failure = databaseFailure(error instanceof GraphQLError ? error.originalError : error);
  if (failure) error = error instanceof GraphQLError ? locatedLike(error, failure.message, failure) : failure;
  if (!(error instanceof GraphQLError)) {
    logError("unexpected GraphQL error", error);
    return new ApiError(500, message);
  }
  const original = error.originalError;
  const apiError = error instanceof ApiError ? error : original instanceof ApiError ? original : null;
  if (apiError) {
    // A condition the request's headers set failed (a stale If-Match, a key another request holds): it is
    // the request's status, on GraphQL as on REST, wherever in the operation the write path found it.
    const header = apiError.problems.find((problem) => CONDITION_HEADERS.has(problem.parameter));
    if (header && !error.extensions.http) return locatedLike(error, error.message, apiError, { ...error.extensions, http: { status: apiError.status } });
    return error;
  }
  if (!error.path) {
    // Request errors (JSON, parsing, validation, variable coercion) are the client's; show them without their cause.
    const { http, code } = error.extensions;
    const problem = variableProblem(error.message);
    return new GraphQLError(error.message, {
      nodes: error.nodes,
      extensions: { code: code ?? "BAD_REQUEST", ...(problem ? { errors: [problem] } : {}), ...(http ? { http } : {}) },
    });
  }
  if (!original) return error;
  const clientFault = clientFaultFromDatabase(original);
  if (clientFault) return clientFault;
  logError("unexpected GraphQL error", original);
  return new ApiError(500, message);
}
