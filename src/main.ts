import { loadConfig } from "./config.js";
import { createApp } from "./app.js";
import { restOperations } from "../rest-facade/table.js";

const config = loadConfig();
const { app, db, close } = await createApp({ config, log: (line, error) => (error ? console.error(line, error) : console.log(line)) });

const server = app.listen(config.port, config.host, () => {
  const base = `http://${config.host === "0.0.0.0" ? "localhost" : config.host}:${config.port}`;
  console.log(`Hubgraph on ${db.kind === "pglite" ? `embedded PGlite (${config.dataDir})` : "PostgreSQL"}`);
  console.log(`  GraphiQL:  ${base}/graphql`);
  const areas = [...new Set(restOperations.map((operation) => operation.area))];
  console.log(`  REST API:  ${base}/api  (operations: ${areas.map((area) => `${base}/api/${area}`).join(", ")})`);
});

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    server.close(() => void close().then(() => process.exit(0)));
  });
}
