import { GraphQLError } from "graphql";

/** One bad input, named the way the caller's surface names it (the facade renames GraphQL names to REST ones). */
export interface ParameterProblem {
  parameter: string;
  message: string;
}

/** The statuses an ApiError has, with the code GraphQL clients see for each. */
export const ERROR_CODES: Record<number, string> = {
  400: "BAD_REQUEST",
  401: "UNAUTHENTICATED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  405: "METHOD_NOT_ALLOWED",
  409: "CONFLICT",
  412: "PRECONDITION_FAILED",
  413: "PAYLOAD_TOO_LARGE",
  415: "UNSUPPORTED_MEDIA_TYPE",
  422: "UNPROCESSABLE_CONTENT",
  429: "TOO_MANY_REQUESTS",
  500: "INTERNAL_SERVER_ERROR",
  503: "SERVICE_UNAVAILABLE",
};

/**
 * The one error type services throw. It is a GraphQLError, so GraphQL clients see `message`,
 * `extensions.code` and `extensions.errors` unmasked (HTTP 200, as GraphQL-over-HTTP expects for
 * resolver errors); the REST facade reads `status` and `problems` and answers with the contract's
 * status code and error body.
 */
export class ApiError extends GraphQLError {
  readonly status: number;
  readonly problems: ParameterProblem[];

  constructor(status: number, message: string, problems: ParameterProblem[] = []) {
    super(message, {
      extensions: {
        code: ERROR_CODES[status] ?? "ERROR",
        ...(problems.length ? { errors: problems } : {}),
      },
    });
    this.status = status;
    this.problems = problems;
  }
}

export const badInput = (parameter: string, message: string) =>
  new ApiError(400, `Invalid parameter "${parameter}": ${message}`, [{ parameter, message }]);
export const unauthenticated = (message = "Authentication required.") => new ApiError(401, message);
export const forbidden = (message = "You are not allowed to do this.") => new ApiError(403, message);
export const notFound = (message: string) => new ApiError(404, message);
export const conflict = (parameter: string, message: string) => new ApiError(409, message, [{ parameter, message }]);

/** The contract's error body as JSON Schema (the OpenAPI document's `Error`); app.ts's errorHandler writes it. */
export const ERROR_BODY_SCHEMA = {
  type: "object",
  description: "The contract's error body: a message, the HTTP status again, and the bad parameters when there are any.",
  properties: {
    message: { type: "string" },
    code: { type: "integer", description: "The HTTP status." },
    errors: {
      type: "array",
      items: {
        type: "object",
        properties: { parameter: { type: "string", description: "The parameter, named as the request named it." }, message: { type: "string" } },
        required: ["parameter", "message"],
        additionalProperties: false,
      },
    },
  },
  required: ["message", "code"],
  additionalProperties: false,
};
