import {
  GraphQLError,
  execute,
  getOperationAST,
  getVariableValues,
  isObjectType,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLResolveInfo,
  type GraphQLSchema,
} from "graphql";
import { compileQuery, isCompiledQuery } from "graphql-jit";

/**
 * Documents compiled to JavaScript (graphql-jit) instead of interpreted on every request: graphql-js
 * re-reads the document for each field of each record. Compiled, a REST list of 25 records costs ≈25 %
 * less server CPU and a GraphQL list ≈20 % less (docs/performance.md).
 *
 * Resolvers, scalars and errors are the schema's own either way. Variables are checked by graphql-js
 * first, so a bad variable is refused with graphql-js's own error (which src/app.ts turns into a 400
 * naming the input field), not graphql-jit's differently worded one. test/contract.test.ts counts the
 * SQL statements of nested selections through both paths, so DataLoader batches that split under the
 * compiled code would fail it.
 */

export type RunDocument = (variables: Record<string, unknown>, context: unknown) => Promise<ExecutionResult> | ExecutionResult;

/** A fixed document (a REST facade row's), compiled now; one graphql-jit cannot compile runs through `execute`. */
export function compiledDocument(schema: GraphQLSchema, document: DocumentNode, operationName?: string | null): RunDocument {
  sharingResponsePaths(schema);
  const compiled = compileQuery(schema, document, operationName ?? undefined);
  // graphql-jit compiled the document, so it has this operation; its variables, found once.
  const definitions = getOperationAST(document, operationName)?.variableDefinitions ?? [];
  if (isCompiledQuery(compiled)) {
    const located = locatingErrors(document);
    return (variables, context) => {
      const { errors } = getVariableValues(schema, definitions, variables, { maxErrors: 50 });
      if (errors) return { errors };
      const result = compiled.query(undefined, context, variables) as Promise<ExecutionResult> | ExecutionResult;
      return result instanceof Promise ? result.then(located) : located(result);
    };
  }
  return (variables, context) => execute({ schema, document, operationName, variableValues: variables, contextValue: context });
}

type PathLink = GraphQLResolveInfo["path"];
/** A response path link that stands for every link with the same keys in one request; `next` finds its children. */
type SharedLink = { prev: SharedLink | undefined; key: string | number; typename: undefined; next?: Map<string | number, SharedLink> };

/** Per request context, the first links of the paths resolved so far. */
const sharedRoots = new WeakMap<object, Map<string | number, SharedLink>>();

function sharedLink(context: object, path: PathLink): SharedLink {
  if (!path.prev) {
    let roots = sharedRoots.get(context);
    if (!roots) sharedRoots.set(context, (roots = new Map()));
    let link = roots.get(path.key);
    if (!link) roots.set(path.key, (link = { prev: undefined, key: path.key, typename: undefined }));
    return link;
  }
  const prev = sharedLink(context, path.prev);
  let link = prev.next?.get(path.key);
  if (!link) (prev.next ??= new Map()).set(path.key, (link = { prev, key: path.key, typename: undefined }));
  return link;
}

const sharing = new WeakSet<GraphQLSchema>();

/**
 * Pothos' Prisma plugin finds what a parent row's query already loaded for a relation by walking the
 * resolver's `info.path` up to the link a parent field recorded it on, by identity: graphql-js hands
 * every field of a row the same link objects. graphql-jit writes a new path object for each resolver
 * call, so a relation two levels down found nothing and loaded itself again, one batch per tick
 * (test/contract.test.ts counted 12 statements instead of 7 on a busy machine). The fields that record
 * or look up those links — root fields and Pothos fields with a selection (relations, `select` hints) —
 * get, under graphql-jit, one shared link per path and request. graphql-js's own links (they carry
 * `typename`) pass through untouched. Changed once, in place, before the schema's first compilation.
 */
function sharingResponsePaths(schema: GraphQLSchema): void {
  if (sharing.has(schema)) return;
  sharing.add(schema);
  const roots = new Set([schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]);
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith("__")) continue;
    for (const field of Object.values(type.getFields())) {
      const resolve = field.resolve;
      if (!resolve || !(roots.has(type) || field.extensions?.pothosPrismaSelect)) continue;
      field.resolve = (parent, args, context, info) => {
        if (info.path.typename === undefined && typeof context === "object" && context !== null) {
          (info as { path: PathLink }).path = sharedLink(context, info.path);
        }
        return resolve(parent, args, context, info);
      };
    }
  }
}

/**
 * graphql-jit's field errors carry their `locations` but not the nodes or source positions graphql-js's
 * do, and yoga builds each error anew from those before writing it, which dropped the locations. Each is
 * rebuilt here with the document's source and the positions of its locations.
 */
function locatingErrors(document: DocumentNode): (result: ExecutionResult) => ExecutionResult {
  const source = document.loc?.source;
  let lineStarts: number[] | undefined;
  const position = (line: number, column: number) => {
    if (!lineStarts) {
      lineStarts = [0];
      for (const match of source!.body.matchAll(/\r\n|[\n\r]/g)) lineStarts.push(match.index + match[0].length);
    }
    return (lineStarts[line - 1] ?? 0) + column - 1;
  };
  return (result) => {
    if (!result.errors?.length || !source) return result;
    const errors = result.errors.map((error) =>
      error.nodes || !error.locations?.length
        ? error
        : new GraphQLError(error.message, {
            source,
            positions: error.locations.map(({ line, column }) => position(line, column)),
            path: error.path,
            originalError: error.originalError,
            extensions: error.extensions,
          }),
    );
    return { ...result, errors };
  };
}

/** Per parsed document and operation name: how often it ran interpreted, or its compiled form. */
const seen = new WeakMap<DocumentNode, Map<string, number | RunDocument>>();

/**
 * `execute` for documents sent to /graphql: a document runs interpreted the first time and compiled from
 * its second run on. Compiling costs several executions (≈1–7 ms for a list query, 15–80 ms for
 * GraphiQL's introspection), so a document seen once — a one-off query, a stream of distinct ones — never
 * pays it. Kept by the parsed document, which yoga's parser cache (an LRU of 1,000) holds on to and
 * hands back for the same text: what that cache forgets is forgotten here too.
 */
export function executeCompiledWhenRepeated(args: ExecutionArgs): ReturnType<typeof execute> {
  let byOperation = seen.get(args.document);
  if (!byOperation) seen.set(args.document, (byOperation = new Map()));
  const operation = args.operationName ?? "";
  const known = byOperation.get(operation);
  if (typeof known === "function") return known(args.variableValues ?? {}, args.contextValue);
  if (known === undefined) {
    // Only operations the document has are remembered: any name may be sent, and graphql-js refuses the others.
    if (getOperationAST(args.document, args.operationName)) byOperation.set(operation, 1);
    return execute(args);
  }
  const run = compiledDocument(args.schema, args.document, args.operationName);
  byOperation.set(operation, run);
  return run(args.variableValues ?? {}, args.contextValue);
}
