import { moduleFiles } from "../common/modules.js";

/**
 * Loads every plugin file of src/plugins/installed/ (found by name: adding a plugin is adding its file,
 * docs/plugins.md). A module loads once, so each plugin registers once.
 */
for (const file of moduleFiles(import.meta.url, "installed")) await import(file);
