import crypto from "node:crypto";
import { Kind, getOperationAST, isNonNullType, isObjectType, type DocumentNode, type ExecutionResult, type FieldNode, type GraphQLSchema, type OperationDefinitionNode } from "graphql";
import { Prisma, type PrismaClient } from "../generated/prisma/client.js";
import { ApiError } from "../common/errors.js";
import { OperationConditions, type IdempotencyKey, type Viewer } from "../common/context.js";
import { sqlClientOf, type SqlClient } from "../db/sql.js";
import { prismaRefusedInside } from "../db/transaction-guard.js";
import { uniqueViolation } from "../db/errors.js";
import { answerTooLarge, QUERY_LIMITS } from "../graphql/limits.js";
import { jsonDepth } from "../common/json-bounds.js";

/**
 * Safe retries and conditional writes, for both surfaces alike (docs/decisions.md, "Retries and
 * conditional writes"). The execution core (core.ts) asks `conditionsFor` before an operation runs and
 * hands the write path the answer as the operation's `OperationConditions`.
 *
 * Idempotency-Key: a signed-in caller's operation that runs a mutation, with the key, runs in ONE
 * transaction, in which the first write claims the key in its own statement and the execution result is
 * stored with it; the answer leaves once that has committed. So a key is never kept without its answer, nor
 * an answer without its write: a retry with the key gets the stored result again (`Idempotent-Replayed:
 * true`), rendered by its surface as the first was; one while the first is still running gets 409; the key
 * with another request (method, path, and body or GraphQL parameters) gets 422. An answer with an error
 * undoes the operation's every write and keeps no key. Keys belong to the caller and last a day.
 *
 * If-Match: for an operation that changes one record (`changesOneRecord`), the write path compares it with
 * the record's version on the locked row; a mismatch is 412 and changes nothing. An answer that is one
 * record (`answersOneRecord`) carries that version as its ETag.
 */

/** The request headers that set an operation's conditions: an error naming one is the request's HTTP status on both surfaces. */
export const CONDITION_HEADERS: ReadonlySet<string> = new Set(["Idempotency-Key", "If-Match"]);

/** How long a key is kept and honoured. */
export const IDEMPOTENCY_KEY_HOURS = 24;
/**
 * The largest answer kept for a retry (its JSON): the default body limit. A keyed operation whose answer is
 * larger is undone and refused (400 naming the key): a small request must not make the server keep a large
 * answer for a day.
 */
export const MAX_KEPT_ANSWER_BYTES = 1024 * 1024;
/** Keys one caller may hold at once (each kept a day): beyond, a keyed operation is refused (429 naming the key). */
export const MAX_KEYS_PER_USER = 1_000;
/** The bytes of answers one caller's live keys may hold together (429 naming the key beyond). */
export const MAX_KEPT_BYTES_PER_USER = 16 * 1024 * 1024;
/** How deep a keyed request's body may nest (its fingerprint walks it). */
const MAX_FINGERPRINT_DEPTH = 64;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** What the conditions are read from: the HTTP request as its surface describes it. */
export interface ConditionalRequest {
  method: string;
  /** The path and query as sent. */
  url: string;
  header(name: string): string | undefined;
  /** What the request asks beside its URL, as the fingerprint covers it: the REST body, or the GraphQL parameters. */
  payload: unknown;
  /**
   * A REST row ignores a header that does not apply to its operation (If-Match on a GET, as HTTP servers
   * do); GraphQL refuses it (400 naming the header): a client that sends it expects it to guard something.
   */
  lenient: boolean;
}

/**
 * A request error about a header, naming it: HTTP status `status` on both surfaces, as the core's mask gives
 * every error that names a condition header (src/execution/core.ts `maskError`, CONDITION_HEADERS).
 */
const headerError = (status: number, header: string, message: string, problem: string): ApiError => new ApiError(status, message, [{ parameter: header, message: problem }]);

/**
 * The operation graphql-js runs for these arguments (the one named, or the only one), and the root fields it
 * selects (fragments spread at the root count as many as they hold). Found once per parsed document and
 * operation name — a REST row's DocumentNode, or yoga's cached parse of a /graphql text — since every
 * operation asks it, and a read that answers a record asks it again for its ETag.
 */
function rootsOf(document: DocumentNode, operationName: string | null | undefined): { operation?: OperationDefinitionNode; fields: FieldNode[] } {
  let byName = rootsByDocument.get(document);
  if (!byName) rootsByDocument.set(document, (byName = new Map()));
  const name = operationName ?? "";
  let roots = byName.get(name);
  if (roots) return roots;
  roots = findRoots(document, operationName);
  // Kept only for a name the document has: a client's made-up operation names must not grow the map.
  if (roots.operation) byName.set(name, roots);
  return roots;
}
const rootsByDocument = new WeakMap<DocumentNode, Map<string, { operation?: OperationDefinitionNode; fields: FieldNode[] }>>();

function findRoots(document: DocumentNode, operationName: string | null | undefined): { operation?: OperationDefinitionNode; fields: FieldNode[] } {
  const operation = getOperationAST(document, operationName) ?? undefined;
  if (!operation) return { fields: [] };
  const fields: FieldNode[] = [];
  const fragments = new Map(document.definitions.flatMap((definition) => (definition.kind === Kind.FRAGMENT_DEFINITION ? [[definition.name.value, definition] as const] : [])));
  const pending = [...operation.selectionSet.selections];
  while (pending.length) {
    const selection = pending.shift()!;
    if (selection.kind === Kind.FIELD) fields.push(selection);
    else if (selection.kind === Kind.INLINE_FRAGMENT) pending.push(...selection.selectionSet.selections);
    else pending.push(...(fragments.get(selection.name.value)?.selectionSet.selections ?? []));
  }
  return { operation, fields };
}

/**
 * Whether the operation changes exactly one record through the write path: a mutation of one root field
 * marked CHANGES_ONE_RECORD (`updateWikiPage`, `deleteBlogEntry`, a forum thread's moderation, a REST PUT, PATCH or
 * DELETE row of a record). If-Match applies to these alone.
 */
export function changesOneRecord(schema: GraphQLSchema, document: DocumentNode, operationName?: string | null): boolean {
  const { operation, fields } = rootsOf(document, operationName);
  if (operation?.operation !== "mutation" || fields.length !== 1) return false;
  // Marked where it is declared (src/graphql/crud.ts CHANGES_ONE_RECORD): the field goes through changeRecord,
  // which alone compares If-Match; a mutation that takes an id but changes its record otherwise is not one.
  const field = schema.getMutationType()?.getFields()[fields[0]!.name.value];
  return field?.extensions?.changesOneRecord === true;
}

/**
 * Whether the operation's answer is one record, whose version is its ETag: a single root field whose
 * type is a record type (a Prisma model's object), as `wikiPage(id:)`, `createWikiPage` or `updateWikiPage` are.
 */
export function answersOneRecord(schema: GraphQLSchema, document: DocumentNode, operationName?: string | null): boolean {
  const { operation, fields } = rootsOf(document, operationName);
  if (!operation || fields.length !== 1) return false;
  const root = operation.operation === "mutation" ? schema.getMutationType() : operation.operation === "query" ? schema.getQueryType() : null;
  const found = root?.getFields()[fields[0]!.name.value]?.type;
  // A list of records is not one record: the type is the record's object itself, non-null or not.
  const type = found && isNonNullType(found) ? found.ofType : found;
  return isObjectType(type) && Boolean(type.extensions?.pothosPrismaModel);
}

/**
 * Why the operation takes no Idempotency-Key, if it does not: a root field whose answer holds a secret shown
 * once (`answersSecret`: a webhook endpoint's signing secret, an OAuth client's secret), which kept for a
 * retry would lie in clear beside its record's hash for a day; or one that runs work apart from the
 * operation (`runsApart`: plugin handlers, each isolated), which one key's transaction cannot hold.
 */
function refusesKey(schema: GraphQLSchema, document: DocumentNode, operationName?: string | null): string | null {
  const { operation, fields } = rootsOf(document, operationName);
  const root = operation?.operation === "mutation" ? schema.getMutationType() : null;
  if (!root) return null;
  const extensions = fields.map((field) => root.getFields()[field.name.value]?.extensions ?? {});
  if (extensions.some((extension) => extension.answersSecret === true)) return "This operation answers a secret shown once, which is not kept for a retry: send it without an Idempotency-Key.";
  if (extensions.some((extension) => extension.runsApart === true)) return "This operation runs plugin handlers apart from it, each on its own, which one transaction for the key cannot hold: send it without an Idempotency-Key.";
  return null;
}

/** Whether the operation runs a mutation: only those take an Idempotency-Key (a read is safe to repeat as it is). */
export const runsMutation = (document: DocumentNode, operationName?: string | null) => rootsOf(document, operationName).operation?.operation === "mutation";

/**
 * The operation's conditions from its request's headers; throws the 400 naming a header that is malformed
 * or (on GraphQL) does not apply. Reads nothing from the database: an Idempotency-Key's earlier answer is
 * looked up when the operation runs (`rememberedExecution`).
 */
export function conditionsFor(schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined, request: ConditionalRequest, viewer: Viewer): OperationConditions {
  let ifMatch: string[] | null = null;
  // An empty If-Match names no version: no condition, as before the core (a client's blank default header).
  const ifMatchHeader = request.header("If-Match")?.trim() || undefined;
  if (ifMatchHeader !== undefined) {
    if (changesOneRecord(schema, document, operationName)) ifMatch = ifMatchHeader.split(",").map((tag) => tag.trim()).filter(Boolean);
    else if (!request.lenient) {
      throw headerError(400, "If-Match", 'Invalid header "If-Match": it applies only to a document with exactly one mutation of one record (an update or delete of a record, such as updateWikiPage).', "applies only to a document with exactly one mutation of one record");
    }
  }
  let idempotencyKey: IdempotencyKey | null = null;
  const key = request.header("Idempotency-Key");
  // REST: POST rows only, as the API has always documented it (a PUT or DELETE repeats safely as it is).
  if (key !== undefined && viewer.user && runsMutation(document, operationName) && (!request.lenient || request.method === "POST")) {
    if (!KEY_PATTERN.test(key)) throw headerError(400, "Idempotency-Key", 'Invalid header "Idempotency-Key": must be 1 to 255 visible ASCII characters', "must be 1 to 255 visible ASCII characters");
    const refused = refusesKey(schema, document, operationName);
    if (refused) throw headerError(400, "Idempotency-Key", refused, "cannot be used with this operation");
    // The fingerprint walks the payload; a client's variables nested past any input type's depth are refused first.
    if (jsonDepth(request.payload, MAX_FINGERPRINT_DEPTH) > MAX_FINGERPRINT_DEPTH) {
      throw headerError(400, "Idempotency-Key", `The request's body is nested deeper than ${MAX_FINGERPRINT_DEPTH} levels, more than a keyed request may be.`, "body nested too deep");
    }
    const fingerprint = crypto.createHash("sha256").update(canonicalJson([request.method, request.url, request.payload ?? null])).digest("base64url");
    idempotencyKey = { key, fingerprint };
  }
  return ifMatch || idempotencyKey ? new OperationConditions(ifMatch, idempotencyKey) : new OperationConditions();
}

/**
 * JSON with every object's keys sorted, at every depth: the same fields in another order (a client that
 * builds its body differently on a retry) give the same text, so the same fingerprint. Array order counts.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === "object" && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );
}

/** 429: the caller's live keys hold the most kept for one caller. */
const keysFull = () =>
  headerError(
    429,
    "Idempotency-Key",
    `Your Idempotency-Keys of the last ${IDEMPOTENCY_KEY_HOURS} hours hold the most kept for one caller (${MAX_KEYS_PER_USER} keys, ${MAX_KEPT_BYTES_PER_USER / 1024 / 1024} MB of answers): send this request without a key, or later.`,
    "too many keys held",
  );

/** 400: the keyed operation needs a read the key's transaction cannot make. */
const readsOutsideTheKey = () =>
  headerError(
    400,
    "Idempotency-Key",
    "This operation cannot run with an Idempotency-Key: part of its answer is read outside its write's transaction (a list of related records, or an account's sessions or tokens). Select the written record's own fields and its single related records, or send it without the key.",
    "cannot be used with this selection or operation",
  );

/** An answer with errors, thrown out of the key's transaction so that it rolls back. */
class UndoneAnswer extends Error {
  constructor(readonly result: ExecutionResult) {
    super("the keyed operation answered with errors: undone");
  }
}

/**
 * Runs a keyed operation (`run`, in the transaction whose client it is given) unless its key already has
 * an answer: that answer again (`replayed`), or 422 (another request) or 409 (still running, or its answer
 * lost: the record it made is named). Otherwise the result is stored with the key in the operation's own
 * transaction, after its writes claimed it; a result with errors rolls the transaction back and is
 * answered without data, since nothing it says was written is.
 */
export async function rememberedExecution(
  db: PrismaClient,
  userId: number,
  key: IdempotencyKey,
  conditions: OperationConditions,
  run: (tx: SqlClient) => Promise<ExecutionResult>,
): Promise<KeyedAnswer> {
  // A key past its day is forgotten here, so the write path's claim of it can be a plain INSERT.
  // With it, how many live keys the caller holds (read on the primary key's user_id prefix).
  const [stored] = await sqlClientOf(db).query<{ fingerprint: string | null; result: ExecutionResult | null; version: string | null; recordId: number | null; held: number; heldBytes: number }>(Prisma.sql`
    WITH expired AS (
      DELETE FROM idempotency_keys
       WHERE user_id = ${userId} AND key = ${key.key} AND created <= (now() AT TIME ZONE 'UTC') - make_interval(hours => ${IDEMPOTENCY_KEY_HOURS})),
    live AS (SELECT * FROM idempotency_keys WHERE user_id = ${userId} AND created > (now() AT TIME ZONE 'UTC') - make_interval(hours => ${IDEMPOTENCY_KEY_HOURS}))
    SELECT k.fingerprint, k.result, k.record_version AS version, k.record_id AS "recordId",
           (SELECT count(*)::int FROM live) AS held, (SELECT coalesce(sum(result_bytes), 0)::bigint FROM live)::float8 AS "heldBytes"
      FROM (SELECT 1) AS one LEFT JOIN live k ON k.key = ${key.key}`);
  if (stored!.fingerprint === null) {
    if (stored!.held >= MAX_KEYS_PER_USER || stored!.heldBytes >= MAX_KEPT_BYTES_PER_USER) throw keysFull();
    return runKeyed(db, userId, key, conditions, run, stored!.heldBytes);
  }
  if (stored!.result === null) {
    // Claimed and its result stored commit together, so a key without one was answered before results were
    // kept (migration 20261130100000), under the fingerprint of that version too: told, never written twice.
    const made = stored!.recordId ? ` Its write was made (record ${stored!.recordId}): read that record.` : "";
    throw headerError(409, "Idempotency-Key", `This Idempotency-Key was answered by an earlier version of the server, whose answer is not replayed.${made} Use a new key for a new request.`, "was answered before");
  }
  if (stored!.fingerprint !== key.fingerprint) {
    throw headerError(422, "Idempotency-Key", "This Idempotency-Key was used with another request (method, path or body): use a new key for a new request.", "was used with another request");
  }
  const result = stored!.result;
  return { result: typeof result === "string" ? (JSON.parse(result) as ExecutionResult) : result, replayed: true, committed: false, version: stored!.version ?? undefined };
}

/**
 * A keyed operation's answer: its result; `replayed`, an earlier answer's (with the version its ETag named);
 * `committed`, this run's writes committed (not when its answer had errors and everything was undone).
 */
export interface KeyedAnswer {
  result: ExecutionResult;
  replayed: boolean;
  committed: boolean;
  version?: string;
}

/** The keyed operation run for the first time: its writes, the key and its result in one transaction. */
async function runKeyed(
  db: PrismaClient,
  userId: number,
  key: IdempotencyKey,
  conditions: OperationConditions,
  run: (tx: SqlClient) => Promise<ExecutionResult>,
  /** The bytes of answers the caller's other live keys hold. */
  heldBytes: number,
): Promise<KeyedAnswer> {
  try {
    const result = await sqlClientOf(db).transaction(async (client) => {
      const result = await run(client);
      // Part of the operation reads through Prisma, outside the transaction (a to-many relation of what
      // the write answers, an account's sessions): refused there (src/db/transaction-guard.ts), not waited for.
      if (prismaRefusedInside()) throw new UndoneAnswer({ errors: [readsOutsideTheKey()] });
      if (result.errors?.length) throw new UndoneAnswer(result);
      const stored = JSON.stringify(result);
      // Refused after it ran (src/graphql/limits.ts): refused before it commits, so nothing of it stays.
      if (stored.length > QUERY_LIMITS.maxResponseBytes) throw new UndoneAnswer(answerTooLarge());
      const bytes = Buffer.byteLength(stored);
      if (heldBytes + bytes > MAX_KEPT_BYTES_PER_USER && bytes <= MAX_KEPT_ANSWER_BYTES) {
        throw new UndoneAnswer({ errors: [keysFull()] });
      }
      if (bytes > MAX_KEPT_ANSWER_BYTES) {
        throw new UndoneAnswer({
          errors: [
            headerError(400, "Idempotency-Key", `The answer would be larger than ${MAX_KEPT_ANSWER_BYTES / 1024 / 1024} MB, the most kept for a retry: select less, or send it without an Idempotency-Key.`, "answer too large to keep"),
          ],
        });
      }
      if (conditions.keyClaimed) {
        await client.query(Prisma.sql`UPDATE idempotency_keys SET result = ${stored}::json, result_bytes = ${bytes}, record_version = ${conditions.version ?? null} WHERE user_id = ${userId} AND key = ${key.key}`);
      } else {
        // No write of the kit's claimed it (a mutation outside the write path, or one that wrote nothing): the
        // key is claimed here, with its result, so its retry is answered and never runs it again.
        await client
          .query(
            Prisma.sql`INSERT INTO idempotency_keys (user_id, key, fingerprint, record_id, created, result, result_bytes, record_version)
              VALUES (${userId}, ${key.key}, ${key.fingerprint}, NULL, (now() AT TIME ZONE 'UTC')::timestamp(3), ${stored}::json, ${bytes}, ${conditions.version ?? null})`,
          )
          .catch((error: unknown) => {
            if (uniqueViolation(error)) throw headerError(409, "Idempotency-Key", "A request with this Idempotency-Key was made while this one ran; retry to get its answer.", "is in use");
            throw error;
          });
      }
      return result;
    });
    return { result, replayed: false, committed: true };
  } catch (error) {
    if (error instanceof UndoneAnswer) return { result: { errors: error.result.errors }, replayed: false, committed: false };
    throw error;
  }
}

/** Deletes keys past their day (the purge timer, src/auth/purge.ts). */
export async function deleteExpiredIdempotencyKeys(db: PrismaClient): Promise<number> {
  const [deleted] = await sqlClientOf(db).query<{ rows: number }>(Prisma.sql`
    WITH gone AS (DELETE FROM idempotency_keys WHERE created <= (now() AT TIME ZONE 'UTC') - make_interval(hours => ${IDEMPOTENCY_KEY_HOURS}) RETURNING 1)
    SELECT count(*)::int AS rows FROM gone`);
  return deleted!.rows;
}
