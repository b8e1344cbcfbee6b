import busboy from "busboy";
import qs from "qs";
import type { IncomingHttpHeaders } from "node:http";
import { ApiError } from "../common/errors.js";

const malformed = () =>
  new ApiError(400, "The multipart body is malformed.", [{ parameter: "body", message: "is not valid multipart/form-data" }]);

/**
 * Reads the fields of a multipart/form-data body that express.raw has already buffered (so BODY_LIMIT
 * holds for the whole body, chunked or not). Field names follow the same qs rules as form bodies
 * (`a[]=1`, `params[mode]=wiki`). Files are refused: no documented operation takes one yet.
 */
export function parseMultipartFields(headers: IncomingHttpHeaders, body: Buffer): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers, limits: { files: 0 } });
    } catch {
      return reject(malformed());
    }
    const fields = new URLSearchParams();
    parser.on("field", (name, value) => fields.append(name, value));
    parser.on("filesLimit", () => reject(new ApiError(400, "File uploads are not accepted here.", [{ parameter: "body", message: "must not contain files" }])));
    parser.on("error", () => reject(malformed()));
    parser.on("close", () => resolve(qs.parse(fields.toString(), { depth: 5, arrayLimit: 100 }) as Record<string, unknown>));
    parser.end(body);
  });
}
