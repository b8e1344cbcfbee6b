import express, { type Request, type RequestHandler, type Response } from "express";
import { ApiError } from "../src/common/errors.js";
import { parseMultipart } from "../src/http/multipart.js";

export interface BodyContext {
  /** BODY_LIMIT in bytes: a longer body is refused with 413, sent chunked or not. */
  limit: number;
  /**
   * The file parameters of the rows that may answer this request: file parts under these names are kept
   * (as `File`s among the values), any other file part is refused with 400 naming the body.
   */
  fileParams: ReadonlySet<string>;
}

/**
 * Reads one kind of request body into the values the parameters are read from (graphql-yoga's
 * `{match, parse}` request parsers, for REST bodies). The first parser whose `match` accepts the request
 * reads it; a body no parser matches is 415. Parsers throw `ApiError`s or body-parser's errors (mapped to
 * 400/413/415 by the app's error handler).
 */
export interface RequestParser {
  /** The media type it reads, as the 415 answer names it. */
  mediaType: string;
  /** Whether the body can carry file parameters (the OpenAPI document offers only these for rows that take files). */
  carriesFiles: boolean;
  match(req: Request): boolean;
  parse(req: Request, context: BodyContext): Promise<unknown>;
}

const parsers: RequestParser[] = [];

/** The registered parsers, in the order they are tried (the OpenAPI document lists their media types). */
export const registeredRequestParsers = (): readonly RequestParser[] => parsers;

/** Adds a parser after the ones already registered (JSON, form-urlencoded, multipart are built in). */
export function registerRequestParser(parser: RequestParser): RequestParser {
  if (!parsers.includes(parser)) parsers.push(parser);
  return parser;
}

/**
 * Reads every /api body with the registered parsers, before the protocol routes (token endpoint,
 * session) and the facade rows see it.
 */
export function readBody({
  limit,
  fileParams,
  refusedBeforeReading,
}: {
  limit: number;
  fileParams(req: Request): ReadonlySet<string>;
  /** The request's row answers this caller 401 before reading anything: its body is not read. */
  refusedBeforeReading(req: Request, res: Response): boolean;
}): RequestHandler {
  return (req, res, next) => {
    const length = Number(req.headers["content-length"] ?? 0);
    const hasBody = length > 0 || req.headers["transfer-encoding"] !== undefined;
    if (!hasBody) return next();
    // Not read at all for a caller the row refuses before reading anything: the router answers 401.
    if (refusedBeforeReading(req, res)) return next();
    const parser = parsers.find((candidate) => candidate.match(req));
    if (!parser) return next(new ApiError(415, `Send the body as ${parsers.map((known) => known.mediaType).join(", ")}.`));
    // Refused before reading a byte when the declared size is too large; chunked bodies are counted as they are read.
    if (length > limit) return next(new ApiError(413, "The request body is too large."));
    Promise.resolve()
      .then(() => parser.parse(req, { limit, fileParams: fileParams(req) }))
      .then(
        (body) => {
          req.body = body;
          next();
        },
        next,
      );
  };
}

/**
 * body-parser's reading (byte counting against the limit, chunked bodies, Content-Encoding, charsets) as
 * a promise of the parsed body; one middleware per limit, made on first use.
 */
function viaBodyParser(make: (limit: number) => RequestHandler): (req: Request, limit: number) => Promise<unknown> {
  const byLimit = new Map<number, RequestHandler>();
  return (req, limit) => {
    let middleware = byLimit.get(limit);
    if (!middleware) byLimit.set(limit, (middleware = make(limit)));
    const read = middleware;
    return new Promise((resolve, reject) => void read(req, req.res!, (error?: unknown) => (error ? reject(error) : resolve(req.body))));
  };
}

const anyType = () => true;
const readJson = viaBodyParser((limit) => express.json({ limit, type: anyType }));
const readForm = viaBodyParser((limit) => express.urlencoded({ extended: true, limit, type: anyType }));
const readBytes = viaBodyParser((limit) => express.raw({ limit, type: anyType }));

registerRequestParser({
  mediaType: "application/json",
  carriesFiles: false,
  match: (req) => Boolean(req.is("application/json")),
  parse: (req, { limit }) => readJson(req, limit),
});

registerRequestParser({
  // qs rules: a[]=1&a[]=2, a=1&a=2 and params[mode]=wiki, as the contract's parameter rules need.
  mediaType: "application/x-www-form-urlencoded",
  carriesFiles: false,
  match: (req) => Boolean(req.is("application/x-www-form-urlencoded")),
  parse: (req, { limit }) => readForm(req, limit),
});

registerRequestParser({
  mediaType: "multipart/form-data",
  carriesFiles: true,
  match: (req) => Boolean(req.is("multipart/form-data")),
  // Buffered whole first, so the limit holds for the body as a whole, not per part.
  parse: async (req, { limit, fileParams }) => parseMultipart(req.headers, (await readBytes(req, limit)) as Buffer, fileParams),
});
