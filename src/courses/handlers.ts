import type { Config } from "../config.js";

/**
 * The asset handlers (the original's registry by file extension): which ways of showing an uploaded file a course
 * offers for a file name. `download` takes every file; the others the extensions they name. POST
 * /api/courses/asset/handlers answers them with the upload limit, so a client can say before sending a file what
 * will become of it and whether it is too large.
 */
export interface AssetHandler {
  name: string;
  description: string;
  /** Lower-case extensions without the dot; empty: every file. */
  extensions: readonly string[];
}

export const ASSET_HANDLERS: readonly AssetHandler[] = [
  { name: "download", description: "Offers the file for download.", extensions: [] },
  { name: "pdf", description: "Shows a PDF document in the page.", extensions: ["pdf"] },
  { name: "image", description: "Shows an image in the page.", extensions: ["png", "jpg", "jpeg", "gif", "webp"] },
  { name: "video", description: "Plays a video in the page.", extensions: ["mp4", "webm", "ogv", "mov"] },
  { name: "audio", description: "Plays a sound file in the page.", extensions: ["mp3", "ogg", "oga", "wav", "m4a"] },
];

/** A file name's extension as the handlers read it: after its last dot, lower-cased; none: "". */
export const extensionOf = (name: string): string => {
  const base = name.split(/[\\/]/).pop() ?? "";
  const dot = base.lastIndexOf(".");
  return dot > 0 && dot < base.length - 1 ? base.slice(dot + 1).toLowerCase() : "";
};

/** The handlers that take a file of this name, the most specific first, and the upload limit in megabytes. */
export function handlersFor(name: string, config: Config): { ext: string; handlers: AssetHandler[]; maxUpload: number } {
  const ext = extensionOf(name);
  const handlers = [...ASSET_HANDLERS.filter((handler) => ext && handler.extensions.includes(ext)), ...ASSET_HANDLERS.filter((handler) => !handler.extensions.length)];
  return { ext, handlers, maxUpload: config.courseUploadLimitMb };
}
