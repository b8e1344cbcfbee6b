// Run as a child process by openDatabase: creates the embedded PostgreSQL cluster in the folder given
// on the command line and exits, taking initdb's memory with it.
import { PGlite } from "@electric-sql/pglite";

const dir = process.argv[2];
if (!dir) throw new Error("usage: pglite-initdb <folder>");
const pglite = await PGlite.create(dir);
await pglite.close();
