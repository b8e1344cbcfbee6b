import type { Request, Response } from "express";
import type { DocumentNode } from "graphql";

/**
 * What the HTTP layer hands an operation of the execution core (src/execution/core.ts), typed for every
 * plugin of its chain that reads it (limits, naming, conditions).
 */

/** What the HTTP layer hands an operation: the request, and its response for headers (ETag, Idempotent-Replayed). */
export interface ServerContext {
  req: Request;
  res: Response;
  /**
   * A REST row's run (`runTrusted`): the row (method, path and version), which with its body is what an
   * Idempotency-Key's fingerprint covers — the same URL and body sent to another version is another request.
   */
  trusted?: TrustedRun;
}

/** What a REST row's run carries through the chain (ServerContext.trusted). */
export interface TrustedRun {
  /** "POST /api/wiki 1.0": the row and the version it serves. */
  row: string;
  payload: unknown;
  /** The row's document, parsed and compiled at start-up: what the chain's parse answers for it. */
  document: DocumentNode;
}

/** Whether an operation's context is a REST row's run (the plugins that treat them apart ask this). */
export const isTrustedRun = (context: unknown): boolean => Boolean((context as ServerContext | undefined)?.trusted);
