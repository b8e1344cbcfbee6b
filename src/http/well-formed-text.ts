import type { RequestHandler } from "express";
import { badInput } from "../common/errors.js";
import { illFormedTextPath } from "../common/json-bounds.js";

/**
 * 400 naming the parameter when a query or body value (or key) holds a lone UTF-16 surrogate, such as
 * JSON's "\ud800": such text cannot be encoded as UTF-8 or stored, and a client that sends it has a
 * bug it should hear about, so it is refused rather than silently repaired (docs/decisions.md).
 */
export const refuseIllFormedText: RequestHandler = (req, _res, next) => {
  const path = illFormedTextPath(req.query) ?? illFormedTextPath(req.body);
  if (path === null) return next();
  next(badInput(path || "body", "must be well-formed Unicode text (no lone UTF-16 surrogates)"));
};
