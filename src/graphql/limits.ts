import { isTrustedRun } from "../execution/server-context.js";
import {
  BREAK,
  GraphQLError,
  Kind,
  Lexer,
  NoSchemaIntrospectionCustomRule,
  Source,
  TokenKind,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  print,
  typeFromAST,
  validate,
  visit,
  type ASTNode,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type VariableDefinitionNode,
  getVariableValues,
} from "graphql";
import type { Plugin } from "graphql-yoga";
import { didYouMean } from "graphql/jsutils/didYouMean.js";
import { suggestionList } from "graphql/jsutils/suggestionList.js";
import { getComplexity, simpleEstimator, type ComplexityEstimator } from "graphql-query-complexity";
import { maxAliasesRule } from "@escape.tech/graphql-armor-max-aliases";
import { maxDepthPlugin, maxDepthRule } from "@escape.tech/graphql-armor-max-depth";
import { maxTokensPlugin } from "@escape.tech/graphql-armor-max-tokens";
import { MAX_PAGE_SIZE } from "../common/list-spec.js";
import { jsonLength } from "../common/json-bounds.js";
import { variableProblem } from "./variable-problem.js";

/**
 * Bounds on what one GraphQL operation may ask for and answer. Every operation is checked before it runs,
 * by the execution core's chain (src/execution/core.ts), a document sent to /graphql and a REST row's alike;
 * the REST facade's fixed documents are also checked once, at start-up, against the worst case of their
 * variables (`assertWithinQueryLimits`), so a row that could exceed them never serves.
 */
export const QUERY_LIMITS = {
  /** Nesting depth: page → revisions → author → … ; 10 leaves room for every real screen. */
  maxDepth: 10,
  /** Aliases per document, so one request cannot run a field hundreds of times. */
  maxAliases: 15,
  /**
   * Cost: every field costs 1 plus what it selects, and a field with a `limit` argument (a paged list)
   * costs 1 plus its page size times what it selects (25 when absent, 100 for 0 or more than 100): the
   * number of values it can answer with. 5000 allows 100 records of 40 fields, or 25 pages × 25 revisions
   * × 7 fields; fifteen aliases of 100 pages × 100 revisions (the probe's 162 MB answer) cost 300,000.
   */
  maxCost: 5000,
  /** Tokens per document, so parsing stays cheap. */
  maxTokens: 2000,
  /**
   * Brackets ([ { () nested in a document's text. Parsers (graphql-js's, and graphql-armor's token
   * counter, which parses first) recurse per level: a list literal 3,000 deep overflowed the stack and was
   * answered as an internal error. Field depth is 10 and no real argument nests lists this deep.
   */
  maxNesting: 64,
  /**
   * Bytes of one operation's JSON result. Texts are bounded only by BODY_LIMIT each, so cost alone
   * cannot bound the answer's size; past this the result is replaced by an error asking for less.
   */
  maxResponseBytes: 4 * 1024 * 1024,
} as const;

/** The page size a `limit` argument asks for, as `pageWindow` reads it: absent 25, 0 or over 100 the maximum. */
const pageSize = (limit: unknown) => (typeof limit === "number" && Number.isInteger(limit) && limit >= 1 ? Math.min(limit, MAX_PAGE_SIZE) : MAX_PAGE_SIZE);

/** `worstCase`: every paged field counts its largest page, whatever its arguments (fixed documents, checked once). */
function costEstimators(worstCase: boolean): ComplexityEstimator[] {
  return [
    ({ field, args, childComplexity }) => {
      if (!field.args.some((arg) => arg.name === "limit")) return undefined;
      return 1 + (worstCase ? MAX_PAGE_SIZE : pageSize(args.limit)) * childComplexity;
    },
    simpleEstimator({ defaultComplexity: 1 }),
  ];
}

/** The cost of running `document` (see QUERY_LIMITS.maxCost). Throws a GraphQLError for variables that do not fit their types. */
export function queryCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  options: { variables?: Record<string, unknown>; operationName?: string | null; worstCase?: boolean } = {},
): number {
  return getComplexity({
    schema,
    query: document,
    variables: options.variables ?? {},
    operationName: options.operationName ?? undefined,
    estimators: costEstimators(options.worstCase ?? false),
  });
}

/**
 * The first field that an input object among `variables` does not define, as graphql-js words it, or null.
 * graphql-js reports every such field, each error writing out the whole object it is in (its `inspect`), so
 * an object of 5,000 made-up keys took 40 s of the server's CPU, and its answer was 3 MB
 * (graphql-query-complexity coerces the variables without graphql-js's cap of 50 errors; the fuzzer found
 * it). Walked by the variables' declared types, without recursion; values that do not fit their type are
 * left to graphql-js, whose errors for them are short.
 */
function undefinedInputField(schema: GraphQLSchema, operation: OperationDefinitionNode, variables: Record<string, unknown>): GraphQLError | null {
  // Only values whose type holds input objects are walked: a list of 500,000 strings is not.
  const holdsObjects = (type: GraphQLInputType) => isInputObjectType(getNamedType(type));
  const pending: { type: GraphQLInputType; value: unknown; definition: VariableDefinitionNode; variable: string; path: string }[] = [];
  for (const definition of operation.variableDefinitions ?? []) {
    const type = typeFromAST(schema, definition.type) as GraphQLInputType | undefined;
    const name = definition.variable.name.value;
    if (type && holdsObjects(type) && name in variables) pending.push({ type, value: variables[name], definition, variable: name, path: name });
  }
  // In order (a queue, not a stack): the first undefined field is the one graphql-js would report first.
  for (let at = 0; at < pending.length; at++) {
    const next = pending[at]!;
    const type = isNonNullType(next.type) ? next.type.ofType : next.type;
    if (next.value === null || typeof next.value !== "object") continue;
    if (isListType(type)) {
      // graphql-js takes a single value where a list is declared as a list of one.
      const items = Array.isArray(next.value) ? next.value : [next.value];
      items.forEach((item, index) => pending.push({ ...next, type: type.ofType, value: item, path: Array.isArray(next.value) ? `${next.path}[${index}]` : next.path }));
      continue;
    }
    if (!isInputObjectType(type) || Array.isArray(next.value)) continue;
    const fields = type.getFields();
    for (const [key, value] of Object.entries(next.value)) {
      const field = fields[key];
      if (!field) {
        const where = next.path === next.variable ? "" : ` at "${next.path}"`;
        const message = `Variable "$${next.variable}" got invalid value {…}${where}; Field "${key}" is not defined by type "${type.name}".${didYouMean(suggestionList(key, Object.keys(fields)))}`;
        // Answered as src/execution/core.ts's maskError answers graphql-js's own variable errors (this result does not pass through it).
        return new GraphQLError(message, { nodes: next.definition, extensions: { code: "BAD_REQUEST", errors: [variableProblem(message)!] } });
      }
      if (holdsObjects(field.type)) pending.push({ ...next, type: field.type, value, path: `${next.path}.${key}` });
    }
  }
  return null;
}

/** A request the limits refuse: BAD_REQUEST and HTTP 400 whatever the Accept header, never masked or logged. */
const limitError = (message: string) => new GraphQLError(message, { extensions: { code: "BAD_REQUEST", http: { status: 400 } } });

const costVariablesOf = new WeakMap<DocumentNode, Set<string>>();

/** The variables a document's cost depends on (`costEstimators`): those in `limit` arguments and in directives. Found once per parsed document. */
function costVariables(document: DocumentNode): Set<string> {
  let found = costVariablesOf.get(document);
  if (found) return found;
  found = new Set();
  const collect = (node: ASTNode) => visit(node, { Variable: (variable) => void found!.add(variable.name.value) });
  visit(document, {
    Argument: (argument) => (argument.name.value === "limit" ? void collect(argument.value) : undefined),
    Directive: (directive) => void collect(directive),
    // A variable's definition (its default value) is not a use.
    VariableDefinition: () => false,
  });
  costVariablesOf.set(document, found);
  return found;
}

/** Costs kept per parsed document (yoga's parse cache hands the same DocumentNode back for the same text), per operation and variables. */
const MAX_COSTS_PER_DOCUMENT = 32;
/** Variables longer than this as JSON are measured every time. */
const MAX_KEPT_VARIABLES_LENGTH = 1024;

/**
 * Refuses operations over QUERY_LIMITS.maxCost before anything runs, with the variables they were sent
 * with. An app sends the same few documents with the same few variables again and again: their cost is
 * worked out once (walking the document with the schema was ≈1.5 % of a GraphQL list answer's CPU).
 */
function costLimitPlugin(): Plugin {
  const costs = new WeakMap<DocumentNode, Map<string, number>>();
  const check = ({ args, setResultAndStopExecution }: { args: ExecutionArgs; setResultAndStopExecution: (result: ExecutionResult) => void }) => {
      // The cost depends on the variables only where they are page sizes (`limit`) or decide @skip and
      // @include: the key holds those alone, so a mutation's input (texts of any size, seldom sent twice
      // alike) does not stop its cost being kept. Measured without being written out first (a client's
      // variables may be nested deeper than JSON.stringify's stack allows: the fuzzer sends 200,000 brackets).
      const variables = args.variableValues ?? {};
      // The operation that runs, as graphql-js picks it: the one named, or the only one (none when several are
      // sent unnamed: execution refuses that).
      const operations = args.document.definitions.filter((definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION);
      const operation = args.operationName ? operations.find((definition) => definition.name?.value === args.operationName) : operations.length === 1 ? operations[0] : undefined;
      // A REST row's variables are the facade's, each a declared parameter's scalar at a declared path
      // (rest-facade/params.ts readParams): no field there can be undefined, so the walk is for clients' documents.
      const undefinedField = operation && !isTrustedRun(args.contextValue) ? undefinedInputField(args.schema, operation, variables) : null;
      if (undefinedField) return void setResultAndStopExecution({ errors: [undefinedField] });
      const relevant: Record<string, unknown> = {};
      for (const name of costVariables(args.document)) if (name in variables) relevant[name] = variables[name];
      const keep = jsonLength(relevant, MAX_KEPT_VARIABLES_LENGTH) <= MAX_KEPT_VARIABLES_LENGTH;
      let known = costs.get(args.document);
      const key = keep ? `${args.operationName ?? ""}\u0000${JSON.stringify(relevant)}` : "";
      let cost = keep ? known?.get(key) : undefined;
      if (cost === undefined) {
        try {
          // Variables that do not fit their types, found with graphql-js's cap on errors (the cost's own
          // check has none): execution refuses them before running anything, and its error names the field.
          if (operation && getVariableValues(args.schema, operation.variableDefinitions ?? [], variables, { maxErrors: 50 }).errors) return;
          cost = queryCost(args.schema, args.document, { variables, operationName: args.operationName });
        } catch (error) {
          // Variables that do not fit their types: execution refuses them before running anything, and its
          // error names the field (src/execution/core.ts maskError), so let it.
          if (error instanceof GraphQLError && /^Variable "\$\w+" /.test(error.message)) return;
          // A document too large to measure.
          setResultAndStopExecution({ errors: [limitError(error instanceof Error ? error.message : "The query cannot be measured.")] });
          return;
        }
        if (keep) {
          if (!known) costs.set(args.document, (known = new Map()));
          if (known.size < MAX_COSTS_PER_DOCUMENT) known.set(key, cost);
        }
      }
      if (cost > QUERY_LIMITS.maxCost) {
        setResultAndStopExecution({
          errors: [limitError(`The query costs ${cost}, more than the limit of ${QUERY_LIMITS.maxCost}: ask for smaller pages (limit), fewer fields or fewer aliases.`)],
        });
      }
  };
  // Subscriptions are not executed but subscribed to (yoga's onSubscribe): the same check, once, when one opens.
  return { onExecute: check, onSubscribe: check };
}

/** The answer that replaces one larger than QUERY_LIMITS.maxResponseBytes (also a keyed operation's, before it commits: src/execution/conditions.ts). */
export const answerTooLarge = (): ExecutionResult => ({
  errors: [limitError(`The answer would be larger than ${QUERY_LIMITS.maxResponseBytes / 1024 / 1024} MB: ask for smaller pages (limit) or fewer text fields.`)],
});

/**
 * Replaces a result larger than QUERY_LIMITS.maxResponseBytes (as JSON) by an error: the whole answer or
 * none of it. A result without errors or extensions is written out here, once: its length is the check,
 * and yoga sends that same text (an execution result's `stringify`, which yoga's result processor calls
 * instead of JSON.stringify). Measuring the result by walking it cost as much as writing it (≈6 % of a
 * list answer's CPU, docs/performance.md). Results with errors or extensions are written by yoga, which
 * removes internal fields from them first, so those are measured by walking them. A REST row's result is
 * not written as it is: the facade measures the body it renders from it, once, as it writes it
 * (rest-facade/router.ts), instead of this writing it a second time (≈30 µs of a forum page's CPU).
 */
function responseSizePlugin(): Plugin {
  return {
    onExecute({ args }) {
      if (isTrustedRun(args.contextValue)) return;
      const tooLarge = () => {
        // The record's version was set as the answer's ETag (src/execution/core.ts); the error has none.
        (args.contextValue as { res?: { removeHeader(name: string): void } }).res?.removeHeader("ETag");
        return answerTooLarge();
      };
      return {
        onExecuteDone({ result, setResult }) {
          if (!("data" in result)) return;
          if (result.errors?.length || result.extensions) {
            if (jsonLength(result, QUERY_LIMITS.maxResponseBytes) > QUERY_LIMITS.maxResponseBytes) setResult(tooLarge());
            return;
          }
          const text = JSON.stringify(result);
          if (text.length > QUERY_LIMITS.maxResponseBytes) return void setResult(tooLarge());
          // Not enumerable, so a copy of the result made later does not carry it; and only for this very
          // result, unchanged since: anything else is written anew.
          Object.defineProperty(result, "stringify", {
            value: (value: unknown) => (value === result && !result.errors?.length && !result.extensions ? text : JSON.stringify(value)),
            enumerable: false,
          });
          setResult(result);
        },
      };
    },
  };
}

/**
 * Refuses documents that nest brackets deeper than QUERY_LIMITS.maxNesting before any parser sees them.
 * Measured with graphql-js's lexer, which reads token by token without recursing (brackets inside strings
 * and comments do not count), and only for documents with that many opening brackets at all.
 */
function nestingLimitPlugin(): Plugin {
  return {
    onParams({ params }) {
      const query = params.query;
      if (typeof query !== "string" || !mayNestBeyond(query, QUERY_LIMITS.maxNesting)) return;
      const lexer = new Lexer(new Source(query));
      let depth = 0;
      try {
        for (let token = lexer.advance(); token.kind !== TokenKind.EOF; token = lexer.advance()) {
          if (token.kind === TokenKind.BRACKET_L || token.kind === TokenKind.BRACE_L || token.kind === TokenKind.PAREN_L) depth += 1;
          else if (token.kind === TokenKind.BRACKET_R || token.kind === TokenKind.BRACE_R || token.kind === TokenKind.PAREN_R) depth -= 1;
          if (depth > QUERY_LIMITS.maxNesting) throw limitError(`The query nests brackets more than ${QUERY_LIMITS.maxNesting} deep.`);
        }
      } catch (error) {
        if (error instanceof GraphQLError && error.extensions.code === "BAD_REQUEST") throw error;
        // A syntax error: the parser reports it, with its location.
      }
    },
  };
}

/** Whether `text` has more than `limit` opening brackets at all (a cheap first look). */
function mayNestBeyond(text: string, limit: number): boolean {
  let opening = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if ((code === 0x5b || code === 0x7b || code === 0x28) && ++opening > limit) return true;
  }
  return false;
}

/**
 * INTROSPECTION: `public` lets everyone read the schema (GraphiQL's docs need it; the SDL and the OpenAPI
 * document are public anyway), `signed-in` refuses anonymous callers, `off` everyone. Refused documents
 * fail validation (400, GraphQL's own message naming the field) before anything runs.
 */
export function introspectionPlugin(policy: "public" | "signed-in" | "off", signedIn: (context: object) => boolean): Plugin {
  return {
    onValidate({ addValidationRule, context }) {
      if (policy === "public" || (policy === "signed-in" && signedIn(context))) return;
      addValidationRule(NoSchemaIntrospectionCustomRule);
    },
  };
}

/**
 * At most QUERY_LIMITS.maxTokens tokens in a document a client sends, counted while it is parsed. The limit
 * guards the parser from clients; a trusted document (a REST row's) is parsed once, at start-up, and run
 * as that parsed document (src/execution/core.ts `runTrusted`), so it never meets this parser.
 */
function tokenLimitPlugin(): Plugin {
  const limited = maxTokensPlugin({ n: QUERY_LIMITS.maxTokens }) as Plugin;
  return {
    onParse(payload) {
      if (isTrustedRun(payload.context)) return;
      return limited.onParse?.(payload);
    },
  };
}

/**
 * At most QUERY_LIMITS.maxAliases aliases in a document a client sends. A trusted document (a REST row's,
 * run by src/execution/core.ts `runTrusted`) aliases its fields to their REST names, one alias per field:
 * what the limit guards against, one field run many times under many names, is refused for it at
 * start-up instead (`assertWithinQueryLimits`: no field twice in one selection), and its cost, checked per
 * request as any document's, counts every field it runs.
 */
function aliasLimitPlugin(): Plugin {
  return {
    onValidate({ addValidationRule, context }) {
      if (isTrustedRun(context)) return;
      addValidationRule(maxAliasesRule({ n: QUERY_LIMITS.maxAliases }));
    },
  };
}

export const queryLimitPlugins = (): Plugin[] => [
  nestingLimitPlugin(),
  maxDepthPlugin({ n: QUERY_LIMITS.maxDepth, ignoreIntrospection: true, flattenFragments: true }),
  aliasLimitPlugin(),
  tokenLimitPlugin(),
  costLimitPlugin(),
  responseSizePlugin(),
];

/**
 * For documents the server itself runs (the REST facade's, once at start-up): throws unless the document
 * stays within the depth and cost limits with every paged field at its largest page, within the token
 * limit, and selects no field twice in one selection (its aliases only rename fields: the alias limit's
 * concern, a field run many times under many names, cannot arise). Depth and cost are checked again per
 * request by the plugins, as for any document.
 */
export function assertWithinQueryLimits(schema: GraphQLSchema, document: DocumentNode, name: string): void {
  const depthErrors = validate(schema, document, [maxDepthRule({ n: QUERY_LIMITS.maxDepth, flattenFragments: true })]);
  if (depthErrors.length) throw new Error(`${name}: ${depthErrors.map((error) => error.message).join("; ")}`);
  const tokens = [...tokensOf(print(document))].length;
  if (tokens > QUERY_LIMITS.maxTokens) throw new Error(`${name}: ${tokens} tokens, more than the limit of ${QUERY_LIMITS.maxTokens}`);
  const twice = fieldSelectedTwice(document);
  if (twice) throw new Error(`${name}: selects ${twice} twice in one selection (an alias may only rename a field)`);
  for (const operation of document.definitions.filter((definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION)) {
    const cost = queryCost(schema, document, { variables: placeholderVariables(schema, operation), operationName: operation.name?.value, worstCase: true });
    if (cost > QUERY_LIMITS.maxCost) throw new Error(`${name}: the document costs ${cost} at the largest page size, more than the limit of ${QUERY_LIMITS.maxCost}`);
  }
}

/** The tokens of a document's text, as the parser reads them (what maxTokens counts). */
function* tokensOf(text: string): Generator<string> {
  const lexer = new Lexer(new Source(text));
  for (let token = lexer.advance(); token.kind !== TokenKind.EOF; token = lexer.advance()) yield token.kind;
}

/** The first field a selection of the document selects twice (under two names), as "parent.field"; null when none. */
function fieldSelectedTwice(document: DocumentNode): string | null {
  let found: string | null = null;
  visit(document, {
    SelectionSet(node, _key, parent) {
      if (found) return BREAK;
      const seen = new Set<string>();
      for (const selection of node.selections) {
        if (selection.kind !== Kind.FIELD) continue;
        const field = selection.name.value;
        if (seen.has(field)) {
          found = `${parent && "name" in parent && parent.name ? (parent.name as { value: string }).value : "(root)"}.${field}`;
          return BREAK;
        }
        seen.add(field);
      }
      return undefined;
    },
  });
  return found;
}

/** Values that satisfy an operation's variable types, so its cost can be measured without a request. */
function placeholderVariables(schema: GraphQLSchema, operation: OperationDefinitionNode): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const definition of operation.variableDefinitions ?? []) {
    const type = typeFromAST(schema, definition.type) as GraphQLInputType | undefined;
    if (type && isNonNullType(type)) values[definition.variable.name.value] = placeholder(type);
  }
  return values;
}

function placeholder(type: GraphQLInputType): unknown {
  if (isNonNullType(type)) return placeholder(type.ofType);
  if (isListType(type)) return [];
  if (isInputObjectType(type)) {
    return Object.fromEntries(Object.values(type.getFields()).filter((field) => isNonNullType(field.type)).map((field) => [field.name, placeholder(field.type)]));
  }
  if (isEnumType(type)) return type.getValues()[0]?.name;
  const scalar = getNamedType(type);
  if (!isScalarType(scalar)) return null;
  // The first candidate the scalar accepts: Int, Float, String, ID, Boolean, DateTime, JSON, …
  for (const candidate of [0, "1", true, "2000-01-01T00:00:00Z", {}]) {
    try {
      scalar.parseValue(candidate);
      return candidate;
    } catch {
      // not this one
    }
  }
  return null;
}
