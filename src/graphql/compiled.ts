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
 * Resolvers and scalars are the schema's own either way, and a compiled document answers what graphql-js
 * answers (src/graphql/compiled.test.ts runs both on the same documents): variables are checked by
 * graphql-js first, so a bad variable is refused with graphql-js's own error (which src/execution/core.ts's maskError turns into
 * a 400 naming the input field); errors are rebuilt as graphql-js builds them (`asGraphQLJsErrors`); and
 * `@skip`/`@include` are decided per response path (graphql-jit's default merges them across the places a
 * fragment is spread). test/contract.test.ts compares the SQL statements of nested selections run both ways.
 */

export type RunDocument = (variables: Record<string, unknown>, context: unknown) => Promise<ExecutionResult> | ExecutionResult;

/** A document compiled now (a REST facade row's at start-up, or one sent to /graphql again); one graphql-jit cannot compile runs through `execute`. */
export function compiledDocument(schema: GraphQLSchema, document: DocumentNode, operationName?: string | null): RunDocument {
  sharingResponsePaths(schema);
  // A copy: graphql-jit writes its own marks onto the field nodes it compiles, and `document` is also
  // yoga's cached parse of the text, which other operations of it are compiled from and graphql-js runs.
  const compiled = compileQuery(schema, structuredClone(document), operationName ?? undefined, { useExperimentalPathBasedSkipInclude: true });
  // graphql-jit compiled the document, so it has this operation; its variables, found once.
  const definitions = getOperationAST(document, operationName)?.variableDefinitions ?? [];
  if (isCompiledQuery(compiled)) {
    const rebuilt = asGraphQLJsErrors(document);
    return (variables, context) => {
      const { errors } = getVariableValues(schema, definitions, variables, { maxErrors: 50 });
      if (errors) return { errors };
      // A root value of its own per run: the shared path links below belong to one execution.
      const result = compiled.query({}, context, variables) as Promise<ExecutionResult> | ExecutionResult;
      return result instanceof Promise ? result.then(rebuilt) : rebuilt(result);
    };
  }
  return (variables, context) => execute({ schema, document, operationName, variableValues: variables, contextValue: context });
}

type PathLink = GraphQLResolveInfo["path"];
/** A response path link that stands for every link with the same keys in one execution; `next` finds its children. */
type SharedLink = { prev: SharedLink | undefined; key: string | number; typename: undefined; next?: Map<string | number, SharedLink> };

/** Per execution (its root value), the first links of the paths resolved so far. */
const sharedRoots = new WeakMap<object, Map<string | number, SharedLink>>();

function sharedLink(execution: object, path: PathLink): SharedLink {
  if (!path.prev) {
    let roots = sharedRoots.get(execution);
    if (!roots) sharedRoots.set(execution, (roots = new Map()));
    let link = roots.get(path.key);
    if (!link) roots.set(path.key, (link = { prev: undefined, key: path.key, typename: undefined }));
    return link;
  }
  const prev = sharedLink(execution, path.prev);
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
 * (test/contract.test.ts counted 11 statements instead of 7). The fields that record or look up those
 * links — root fields (`queryFromInfo`, `prismaField`) and Pothos fields with a selection (relations,
 * `select` hints) — get, under graphql-jit, one shared link per path and execution. graphql-js's own
 * links (they carry `typename`) pass through untouched. Changed once, in place, before the schema's first
 * compilation. A root field elsewhere than Query/Mutation that calls `queryFromInfo` would need adding.
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
        const execution = info?.rootValue;
        if (info?.path && info.path.typename === undefined && typeof execution === "object" && execution !== null) {
          (info as { path: PathLink }).path = sharedLink(execution, info.path);
        }
        return resolve(parent, args, context, info);
      };
    }
  }
}

/**
 * graphql-jit's field errors, as graphql-js would have made them. They carry their `locations` but not
 * the nodes or source positions graphql-js's do, and yoga builds each error anew from those before
 * writing it, which dropped the locations: rebuilt with the document's source and the positions of those
 * locations. And the ones graphql-jit makes itself (null for a non-null field, a value its scalar cannot
 * serialize) have no `originalError`, where graphql-js's do: src/execution/core.ts's maskError logs and masks an
 * error by its cause, so they get one, as they would under graphql-js.
 */
function asGraphQLJsErrors(document: DocumentNode): (result: ExecutionResult) => ExecutionResult {
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
    if (!result.errors?.length) return result;
    const errors = result.errors.map((error) =>
      error.nodes
        ? error
        : new GraphQLError(error.message, {
            source: error.locations?.length ? source : undefined,
            positions: source && error.locations?.length ? error.locations.map(({ line, column }) => position(line, column)) : undefined,
            path: error.path,
            originalError: error.originalError ?? new Error(error.message),
            extensions: error.extensions,
          }),
    );
    return { ...result, errors };
  };
}

/** Per parsed document and operation name: its compiled form, or RAN_ONCE after its first, interpreted run. */
const RAN_ONCE = "ran once";
const seen = new WeakMap<DocumentNode, Map<string, typeof RAN_ONCE | RunDocument>>();

/**
 * The execution core's `execute` (src/execution/core.ts), for both surfaces: a REST row's document was
 * compiled at start-up (`compileNow`) and runs compiled from its first request; a document sent to /graphql
 * runs interpreted the first time and compiled from
 * its second run on. Compiling costs several executions (≈1–7 ms for a list query, 15–80 ms for
 * GraphiQL's introspection), so a document seen once — a one-off query, a stream of distinct ones — never
 * pays it. Kept by the parsed document, which yoga's parser cache (1,024 texts, each for an hour) holds on
 * to and hands back for the same text: what that cache forgets is forgotten here too, and compiled again
 * after its next two runs. The document size limits (src/graphql/limits.ts) bound what one compilation costs.
 */
export function executeCompiledWhenRepeated(args: ExecutionArgs): ReturnType<typeof execute> {
  let byOperation = seen.get(args.document);
  if (!byOperation) seen.set(args.document, (byOperation = new Map()));
  const operation = args.operationName ?? "";
  const known = byOperation.get(operation);
  if (typeof known === "function") return known(args.variableValues ?? {}, args.contextValue);
  if (known === undefined) {
    // Only operations the document has are remembered: any name may be sent, and graphql-js refuses the others.
    if (getOperationAST(args.document, args.operationName)) byOperation.set(operation, RAN_ONCE);
    return execute(args);
  }
  const run = compiledDocument(args.schema, args.document, args.operationName);
  byOperation.set(operation, run);
  return run(args.variableValues ?? {}, args.contextValue);
}

/**
 * Compiles a trusted document (a REST row's, at start-up) for `executeCompiledWhenRepeated`, so it runs
 * compiled from its first request on. Its only operation, unnamed in the call.
 */
export function compileNow(schema: GraphQLSchema, document: DocumentNode): void {
  let byOperation = seen.get(document);
  if (!byOperation) seen.set(document, (byOperation = new Map()));
  if (typeof byOperation.get("") !== "function") byOperation.set("", compiledDocument(schema, document));
}
