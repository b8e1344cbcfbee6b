import express, { type RequestHandler } from "express";
import { GraphQLError } from "graphql";
import type { Plugin } from "graphql-yoga";
import { badInput, type ApiError } from "../common/errors.js";
import { illFormedTextPath } from "../common/json-bounds.js";

const JSON_TYPES = ["application/json", "application/graphql-response+json"];

/**
 * Reads every /graphql body under one size limit (BODY_LIMIT), whatever its type: JSON is parsed
 * here; form, `application/graphql` and multipart bodies are buffered for yoga to parse, so none of
 * them can stream past the limit (413), chunked or not.
 */
export function graphqlBody(limit: string): RequestHandler[] {
  return [
    express.json({ limit, type: JSON_TYPES }),
    // Skipped when express.json has read the body; everything else arrives as a Buffer yoga accepts as is.
    express.raw({ limit, type: () => true }),
  ];
}

/**
 * A client error about the request itself, before anything runs: BAD_REQUEST naming the parameter, never
 * masked or logged, and HTTP 400 whatever the Accept header (nothing ran, so there is no partial result).
 */
function badRequestParameter(parameter: string, message: string): ApiError {
  const error = badInput(parameter, message);
  Object.assign(error.extensions, { http: { status: 400 } });
  return error;
}

/**
 * Request checks yoga leaves to us: malformed `variables` or `extensions` in GET query strings and form
 * bodies (yoga's JSON.parse throws a plain SyntaxError, which would be masked and logged as an internal
 * error), and text that is not well-formed Unicode anywhere in the request's parameters.
 */
export function graphqlRequestChecks(): Plugin {
  return {
    onRequestParse({ requestParser, setRequestParser, serverContext }) {
      if (!requestParser) return;
      // A POST whose JSON body express.json has parsed (graphqlBody) reaches yoga's JSON parser as an object,
      // and that parser answers whatever it meets as a GraphQLError: wrapping it in a promise of our own cost
      // each such request a hand-off. A GET is parsed from its query string whatever its body, so it is wrapped.
      const req = (serverContext as { req?: { method?: string; body?: unknown } } | undefined)?.req;
      if (req?.method === "POST" && req.body !== null && typeof req.body === "object" && !Buffer.isBuffer(req.body)) return;
      setRequestParser(async (request) => {
        try {
          return await requestParser(request);
        } catch (error) {
          if (error instanceof GraphQLError) throw error;
          throw new GraphQLError("The request's GraphQL parameters are malformed: variables and extensions must be JSON objects.", {
            extensions: { code: "BAD_REQUEST", http: { status: 400 } },
          });
        }
      });
    },
    onParams({ params }) {
      for (const name of ["variables", "extensions"] as const) {
        const value = params[name];
        if (value != null && (typeof value !== "object" || Array.isArray(value))) throw badRequestParameter(name, "must be a JSON object");
      }
      for (const name of ["query", "operationName"] as const) {
        const value = params[name];
        if (value != null && typeof value !== "string") throw badRequestParameter(name, "must be a string");
        if (illFormedTextPath(value) !== null) throw badRequestParameter(name, "must be well-formed Unicode text (no lone UTF-16 surrogates)");
      }
      const variable = illFormedTextPath(params.variables);
      if (variable !== null) throw badRequestParameter(variable || "variables", "must be well-formed Unicode text (no lone UTF-16 surrogates)");
      if (illFormedTextPath(params.extensions) !== null) throw badRequestParameter("extensions", "must be well-formed Unicode text (no lone UTF-16 surrogates)");
    },
  };
}
