import { Kind, type DocumentNode, type ExecutionResult, type GraphQLError } from "graphql";
import { isAsyncIterable, type Plugin } from "graphql-yoga";
import { Counter, Histogram, type Registry } from "prom-client";
import { boundedLabel } from "./labels.js";

/**
 * The GraphQL metrics of every operation, on both surfaces (a REST row runs through the same chain): the
 * series @envelop/prometheus wrote with our configuration, under the same names, labels and help texts, so
 * dashboards keep working —
 *
 * - `graphql_envelop_request` (counter) and `graphql_envelop_request_duration` (histogram): operations
 *   executed, and how long, by `operationType`;
 * - `graphql_envelop_phase_execute` and `graphql_envelop_phase_subscribe` (histograms): the execute phase,
 *   and a subscription's whole stream;
 * - `graphql_envelop_error_result` (counter): errors by `operationType`, `phase` (parse, validate, execute,
 *   subscribe) and, for execution errors, `path` — list indices written as `[]`, and paths after the first
 *   100 distinct ones counted as `(other)` (the package kept every path a client's aliases made, without bound).
 *
 * Written here rather than taken from the package because the package paid ≈ 12–22 µs of every request
 * (a REST read's 1–2 %, docs/performance.md): a label object rebuilt through Object.entries/filter per
 * metric and request, the operation found again per request, a WeakMap entry per context. Here the
 * operation type is kept per document and each series' child per operation type.
 */
export function graphqlMetricsPlugin(registry: Registry): Plugin {
  const registers = [registry];
  const byOperationType = (name: string, help: string) => new Histogram({ name, help, labelNames: ["operationType"] as const, registers });
  const request = new Counter({ name: "graphql_envelop_request", help: "Counts the amount of GraphQL requests executed through Envelop", labelNames: ["operationType"] as const, registers });
  const requestDuration = byOperationType("graphql_envelop_request_duration", "Time spent on running the GraphQL operation from parse to execute");
  const executePhase = byOperationType("graphql_envelop_phase_execute", 'Time spent on running the GraphQL "execute" function');
  const subscribePhase = byOperationType("graphql_envelop_phase_subscribe", 'Time spent on running the GraphQL "subscribe" function');
  const errors = new Counter({
    name: "graphql_envelop_error_result",
    help: "Counts the amount of errors reported from all phases",
    labelNames: ["operationType", "phase", "path"] as const,
    registers,
  });

  /** The series of one operation type, made once: prom-client hashes a label object on every observation otherwise. */
  const seriesByType = new Map<string, { request: Counter.Internal; duration: Histogram.Internal<"operationType">; execute: Histogram.Internal<"operationType">; subscribe: Histogram.Internal<"operationType"> }>();
  const seriesOf = (operationType: string) => {
    let series = seriesByType.get(operationType);
    if (!series) {
      const labels = { operationType };
      series = { request: request.labels(labels), duration: requestDuration.labels(labels), execute: executePhase.labels(labels), subscribe: subscribePhase.labels(labels) };
      seriesByType.set(operationType, series);
    }
    return series;
  };
  // An error's path is the client's to shape (aliases, list indices): indices are written as [], and only the
  // first MAX_ERROR_PATHS paths get series of their own.
  const errorPath = boundedLabel(MAX_ERROR_PATHS, "(other)");
  const pathLabel = (path: readonly (string | number)[]) => errorPath(path.map((segment) => (typeof segment === "number" ? "[]" : segment)).join("."));
  const countErrors = (operationType: string, phase: string, found: readonly GraphQLError[] | undefined) => {
    for (const error of found ?? []) {
      errors.inc(error.path ? { operationType, phase, path: pathLabel(error.path) } : { operationType, phase });
    }
  };

  return {
    onParse() {
      return ({ result }) => {
        // A document that does not parse has no operation: "undefined", as the package labelled it.
        if (result instanceof Error) errors.inc({ operationType: "undefined", phase: "parse" });
      };
    },
    onValidate({ params }) {
      const document = params.documentAST;
      return ({ valid }) => {
        if (!valid) errors.inc({ operationType: operationTypeOf(document), phase: "validate" });
      };
    },
    onExecute({ args }) {
      const operationType = operationTypeOf(args.document);
      const started = performance.now();
      return {
        onExecuteDone({ result }) {
          if (isAsyncIterable(result)) return; // incremental delivery: not used by this schema
          const seconds = (performance.now() - started) / 1000;
          const series = seriesOf(operationType);
          series.execute.observe(seconds);
          series.duration.observe(seconds);
          series.request.inc();
          countErrors(operationType, "execute", (result as ExecutionResult).errors);
        },
      };
    },
    onSubscribe({ args }) {
      const operationType = operationTypeOf(args.document);
      const started = performance.now();
      const ended = () => {
        const seconds = (performance.now() - started) / 1000;
        const series = seriesOf(operationType);
        series.subscribe.observe(seconds);
        series.duration.observe(seconds);
        series.request.inc();
      };
      return {
        onSubscribeResult({ result }) {
          if (!isAsyncIterable(result)) {
            countErrors(operationType, "execute", (result as ExecutionResult).errors);
            return ended();
          }
          return { onNext: ({ result: next }) => countErrors(operationType, "execute", (next as ExecutionResult).errors), onEnd: ended };
        },
        onSubscribeError() {
          errors.inc({ operationType, phase: "subscribe" });
        },
      };
    },
  };
}

/** Distinct error paths counted apart (graphql_envelop_error_result's `path`); later ones are "(other)". */
const MAX_ERROR_PATHS = 100;

const operationTypes = new WeakMap<DocumentNode, string>();

/** The type of a document's first operation (as the package labelled it), kept per document. */
function operationTypeOf(document: DocumentNode): string {
  let type = operationTypes.get(document);
  if (type === undefined) {
    const operation = document.definitions.find((definition) => definition.kind === Kind.OPERATION_DEFINITION);
    type = operation && "operation" in operation ? operation.operation : "undefined";
    operationTypes.set(document, type);
  }
  return type;
}
