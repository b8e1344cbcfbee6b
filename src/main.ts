import { loadConfig } from "./config.js";
import { createApp } from "./app.js";

const config = loadConfig();
const { app, db, close } = await createApp({ config, log: (line, error) => (error ? console.error(line, error) : console.log(line)) });

const server = app.listen(config.port, config.host, () => {
  const base = `http://${config.host === "0.0.0.0" ? "localhost" : config.host}:${config.port}`;
  console.log(`Hubgraph on ${db.kind === "pglite" ? `embedded PGlite (${config.dataDir})` : "PostgreSQL"}`);
  console.log(`  GraphiQL:  ${base}/graphql`);
  console.log(`  REST API:  ${base}/api  (operations: ${base}/api/wiki, ${base}/api/blog)`);
});

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    server.close(() => void close().then(() => process.exit(0)));
  });
}
