import busboy from "busboy";
import qs from "qs";
import type { IncomingHttpHeaders } from "node:http";
import { ApiError } from "../common/errors.js";

const malformed = () =>
  new ApiError(400, "The multipart body is malformed.", [{ parameter: "body", message: "is not valid multipart/form-data" }]);

/** A file part the answering row has no file parameter for. */
export const fileNotAccepted = (name: string) =>
  new ApiError(400, `The file part "${name}" is not accepted here.`, [{ parameter: "body", message: `must not contain a file part "${name}"` }]);

const noFilesHere = () => new ApiError(400, "File uploads are not accepted here.", [{ parameter: "body", message: "must not contain files" }]);

/**
 * Reads a multipart/form-data body that has already been buffered (so BODY_LIMIT holds for the whole
 * body, chunked or not). Field names follow the same qs rules as form bodies (`a[]=1`, `params[mode]=wiki`).
 * File parts are kept only under the names in `fileFields`, as WHATWG `File`s among the values (two parts
 * of one name give an array); any other file part is refused with 400 naming the body.
 */
export function parseMultipart(
  headers: IncomingHttpHeaders,
  body: Buffer,
  fileFields: ReadonlySet<string> = new Set(),
): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers, limits: fileFields.size ? {} : { files: 0 } });
    } catch {
      return reject(malformed());
    }
    const fields = new URLSearchParams();
    const files: [string, File][] = [];
    parser.on("field", (name, value) => fields.append(name, value));
    parser.on("file", (name, stream, info) => {
      if (!fileFields.has(name)) {
        stream.resume();
        return reject(fileNotAccepted(name));
      }
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => files.push([name, new File([Buffer.concat(chunks)], info.filename ?? name, { type: info.mimeType })]));
    });
    parser.on("filesLimit", () => reject(noFilesHere()));
    parser.on("error", () => reject(malformed()));
    parser.on("close", () => {
      const values = qs.parse(fields.toString(), { depth: 5, arrayLimit: 100 }) as Record<string, unknown>;
      for (const [name, file] of files) {
        const earlier = values[name];
        values[name] = earlier === undefined ? file : [...(Array.isArray(earlier) ? earlier : [earlier]), file];
      }
      resolve(values);
    });
    parser.end(body);
  });
}
