import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import express from "express";
import {
  GraphQLID,
  GraphQLInt,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLScalarType,
  GraphQLSchema,
  GraphQLString,
  parse,
} from "graphql";
import { errorHandler } from "../src/app.js";
import { loadConfig } from "../src/config.js";
import { anonymous, createContext } from "../src/common/context.js";
import { executionCore } from "../src/execution/core.js";
import { registerRequestParser } from "./request-parsers.js";
import { registerResponseKind } from "./responses.js";
import { restFacade } from "./router.js";
import type { RestOperation } from "./types.js";
import { selectVersion } from "./versions.js";

/**
 * The facade is open to row kinds the wiki and blog do not need (courses upload files and answer with
 * images): a response kind and a request parser registered from outside the router, and multipart file
 * parts reaching a row's `file` parameter. A tiny schema of its own, served over real HTTP.
 */

// A response kind from "its own file": its row options, by declaration merging, and its registration.
declare module "../src/common/rest-vocabulary.js" {
  interface ResponseKinds {
    "test-download": { disposition: "inline" | "attachment" };
  }
}

registerResponseKind({
  kind: "test-download",
  send(res, operation, value) {
    const file = value as { name: string; type: string; text: string };
    res
      .status(operation.status)
      .type(file.type)
      .set("Content-Disposition", `${operation.response.disposition}; filename="${file.name}"`)
      .send(Buffer.from(file.text));
  },
  describe: () => ({ mediaType: "*/*", schema: { type: "string", contentMediaType: "application/octet-stream" } }),
});

// A request parser for a body type the built-in ones do not read: one `name=value` per line.
registerRequestParser({
  mediaType: "text/x-test-pairs",
  carriesFiles: false,
  match: (req) => Boolean(req.is("text/x-test-pairs")),
  parse: async (req) => {
    let text = "";
    for await (const chunk of req) text += chunk;
    return Object.fromEntries(text.split("\n").filter(Boolean).map((line) => line.split("=", 2)));
  },
});

const FileScalar = new GraphQLScalarType({ name: "File", description: "A file part of a multipart/form-data request (WHATWG File)." });
const Upload = new GraphQLObjectType({
  name: "Upload",
  fields: {
    thingId: { type: new GraphQLNonNull(GraphQLID) },
    name: { type: new GraphQLNonNull(GraphQLString) },
    type: { type: new GraphQLNonNull(GraphQLString) },
    size: { type: new GraphQLNonNull(GraphQLInt) },
    text: { type: new GraphQLNonNull(GraphQLString) },
    note: { type: GraphQLString },
  },
});
const testSchema = new GraphQLSchema({
  query: new GraphQLObjectType({ name: "Query", fields: { ok: { type: GraphQLString, args: { thingId: { type: GraphQLID } }, resolve: () => "ok" } } }),
  mutation: new GraphQLObjectType({
    name: "Mutation",
    fields: {
      storeUpload: {
        type: new GraphQLNonNull(Upload),
        args: { thingId: { type: new GraphQLNonNull(GraphQLID) }, file: { type: new GraphQLNonNull(FileScalar) }, note: { type: GraphQLString } },
        resolve: async (_root, args: { thingId: string; file: File; note?: string }) => {
          // The resolver gets the File itself, as graphql-yoga hands a multipart upload to /graphql resolvers.
          if (!(args.file instanceof File)) throw new Error("not a File");
          return { thingId: args.thingId, name: args.file.name, type: args.file.type, size: args.file.size, text: await args.file.text(), note: args.note };
        },
      },
    },
  }),
});

const STORE = parse(`
  mutation TestStore($thingId: ID!, $file: File!, $note: String) {
    storeUpload(thingId: $thingId, file: $file, note: $note) { thingId name type size text note }
  }
`);

const base: Pick<RestOperation, "area" | "versions" | "task" | "document" | "resultField" | "status" | "access"> = {
  area: "things",
  versions: ["1.0"],
  task: "store a file",
  document: STORE,
  resultField: "storeUpload",
  status: 201,
  access: "anyone",
};

const rows: RestOperation[] = [
  {
    ...base,
    method: "POST",
    // The identifier is documented as `id`, read from a placeholder named otherwise (like GET /forum/{thread}).
    path: "/things/{thing}/files",
    params: [
      { name: "id", type: "integer", required: true, description: "Thing identifier.", variable: "thingId", placeholder: "thing" },
      { name: "upload", type: "file", required: true, description: "The file.", variable: "file" },
      { name: "note", type: "string", required: false, description: "A note.", variable: "note" },
    ],
    response: { kind: "record" },
  },
  {
    ...base,
    method: "PUT",
    path: "/things/{thing}/files",
    params: [
      { name: "id", type: "integer", required: true, description: "Thing identifier.", variable: "thingId", placeholder: "thing" },
      { name: "upload", type: "file", required: true, description: "The file.", variable: "file" },
    ],
    response: { kind: "test-download", disposition: "attachment" },
    status: 200,
  },
  {
    ...base,
    method: "POST",
    path: "/things/{thing}/files",
    versions: ["1.1"],
    params: [{ name: "id", type: "integer", required: true, description: "Thing identifier.", variable: "thingId", placeholder: "thing" }],
    document: parse("query TestOk($thingId: ID) { ok(thingId: $thingId) }"),
    resultField: "ok",
    response: { kind: "record" },
    status: 200,
  },
];

let server: Server;
let url: string;

beforeAll(async () => {
  const app = express();
  app.set("query parser", "extended");
  app.use("/api", selectVersion(["1.0", "1.1"]));
  const config = loadConfig();
  // The rows run through an execution core of the tiny schema, as the app's run through its own.
  const core = executionCore({ schema: testSchema, config, contextFor: () => createContext(null as never, anonymous, config), logError: () => {} });
  const facade = restFacade({ schema: testSchema, operations: rows, core, config, log: () => {}, bodyLimit: 16 * 1024 });
  app.use("/api", facade.readBody, facade.router);
  app.use(errorHandler(() => {}));
  server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, "127.0.0.1", () => resolve(listening));
  });
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
});

async function send(method: string, path: string, body: BodyInit, headers: Record<string, string> = {}) {
  const response = await fetch(`${url}${path}`, { method, body, headers });
  const text = await response.text();
  const json = (response.headers.get("content-type") ?? "").includes("json") ? JSON.parse(text) : null;
  return { status: response.status, headers: response.headers, text, body: json };
}

const fileForm = (fields: Record<string, string | Blob>) => {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) {
    if (value instanceof Blob) form.append(name, value, "notes.txt");
    else form.append(name, value);
  }
  return form;
};

describe("a row with a file parameter", () => {
  it("gets the multipart file part as a File in its GraphQL variable, and the path placeholder as its `id`", async () => {
    const form = fileForm({ note: "first", upload: new Blob(["hello, file"], { type: "text/plain" }) });
    const answer = await send("POST", "/api/things/7/files", form);
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body).toEqual({ thingId: 7, name: "notes.txt", type: "text/plain", size: 11, text: "hello, file", note: "first" });
  });

  it("refuses a string, a missing file, and two files for the parameter, naming it", async () => {
    const asString = await send("POST", "/api/things/7/files", fileForm({ upload: "not a file" }));
    expect(asString.status).toBe(400);
    expect(asString.body.errors).toEqual([{ parameter: "upload", message: expect.stringMatching(/must be a file/) }]);
    const asJson = await send("POST", "/api/things/7/files", JSON.stringify({ upload: "x" }), { "content-type": "application/json" });
    expect(asJson.body.errors).toEqual([{ parameter: "upload", message: expect.stringMatching(/must be a file/) }]);
    const missing = await send("POST", "/api/things/7/files", fileForm({ note: "no file" }));
    expect(missing.body.errors).toEqual([{ parameter: "upload", message: "is required" }]);
    const form = fileForm({ upload: new Blob(["a"]) });
    form.append("upload", new Blob(["b"]), "second.txt");
    const two = await send("POST", "/api/things/7/files", form);
    expect(two.body.errors).toEqual([{ parameter: "upload", message: "must be a single file" }]);
  });

  it("refuses a file part under another name with 400 naming the body", async () => {
    const answer = await send("POST", "/api/things/7/files", fileForm({ upload: new Blob(["a"]), note: new Blob(["b"]) }));
    expect(answer.status, answer.text).toBe(400);
    expect(answer.body.errors).toEqual([{ parameter: "body", message: 'must not contain a file part "note"' }]);
  });

  it("in a version that takes no file, refuses the file part with 400 naming the body", async () => {
    const form = fileForm({ upload: new Blob(["a"]) });
    const answer = await send("POST", "/api/things/7/files?v=1.1", form);
    expect(answer.status, answer.text).toBe(400);
    expect(answer.body.errors).toEqual([{ parameter: "body", message: 'must not contain a file part "upload"' }]);
    const fieldsOnly = await send("POST", "/api/things/7/files?v=1.1", fileForm({ remark: "no file" }));
    expect(fieldsOnly.status, fieldsOnly.text).toBe(200);
    expect(fieldsOnly.body).toBe("ok");
    expect(fieldsOnly.headers.get("x-ignored-parameters")).toBe("remark");
    // `note` is 1.0's: sent to 1.1 it is a 400 naming the version that reads it, not dropped (issue 32).
    const note = await send("POST", "/api/things/7/files?v=1.1", fileForm({ note: "no file" }));
    expect(note.status).toBe(400);
    expect(note.body.errors).toEqual([{ parameter: "note", message: expect.stringContaining("is a parameter of version 1.0") }]);
  });

  it("holds BODY_LIMIT for the file (413)", async () => {
    const answer = await send("POST", "/api/things/7/files", fileForm({ upload: new Blob(["x".repeat(20 * 1024)]) }));
    expect(answer.status, answer.text).toBe(413);
  });
});

describe("a registered response kind", () => {
  it("sends the row's result its own way", async () => {
    const answer = await send("PUT", "/api/things/3/files", fileForm({ upload: new Blob(["col1,col2\n1,2\n"], { type: "text/csv" }) }));
    expect(answer.status, answer.text).toBe(200);
    expect(answer.headers.get("content-type")).toMatch(/^text\/csv/);
    expect(answer.headers.get("content-disposition")).toBe('attachment; filename="notes.txt"');
    expect(answer.text).toBe("col1,col2\n1,2\n");
  });
});

describe("a registered request parser", () => {
  it("reads its body type into the row's parameters", async () => {
    // Read: `upload` is there (not "is required"), but no file can come in this body type.
    const answer = await send("POST", "/api/things/7/files", "note=from pairs\nupload=text", { "content-type": "text/x-test-pairs" });
    expect(answer.status, answer.text).toBe(400);
    expect(answer.body.errors).toEqual([{ parameter: "upload", message: expect.stringMatching(/must be a file/) }]);
  });

  it("is named, with the built-in ones, when a body type is unsupported (415)", async () => {
    const answer = await send("POST", "/api/things/7/files", "x", { "content-type": "text/plain" });
    expect(answer.status).toBe(415);
    expect(answer.body.message).toBe("Send the body as application/json, application/x-www-form-urlencoded, multipart/form-data, text/x-test-pairs.");
  });
});
