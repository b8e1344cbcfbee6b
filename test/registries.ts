import { scopeKinds } from "../src/common/scope-kinds.js";
import { registeredPlugins, pluginKey } from "../src/plugins/registry.js";
import { registeredRequestParsers } from "../rest-facade/request-parsers.js";
import { registeredResponseKinds } from "../rest-facade/responses.js";

/** What the kit's process-wide registries hold: what a test file sharing its process must leave as it found. */
export const registrySnapshot = () => ({
  scopeKinds: scopeKinds().map((kind) => kind.name),
  plugins: registeredPlugins().map((plugin) => pluginKey(plugin.folder, plugin.element)),
  requestParsers: registeredRequestParsers().map((parser) => parser.mediaType),
  responseKinds: registeredResponseKinds(),
});
