import { loadConfig } from "./config.js";
import { createApp } from "./app.js";
import { restOperations } from "../rest-facade/table.js";
import { createHttpServer } from "./http/server.js";

const config = loadConfig();
const { app, db, close } = await createApp({ config, log: (line, error) => (error ? console.error(line, error) : console.log(line)) });

const server = createHttpServer(app).listen(config.port, config.host, () => {
  const base = `http://${config.host === "0.0.0.0" ? "localhost" : config.host}:${config.port}`;
  console.log(`Hubgraph on ${db.kind === "pglite" ? `embedded PGlite (${config.dataDir})` : "PostgreSQL"}`);
  console.log(`  GraphiQL:  ${base}/graphql`);
  const areas = [...new Set(restOperations.map((operation) => operation.area))];
  console.log(`  REST API:  ${base}/api  (operations: ${areas.map((area) => `${base}/api/${area}`).join(", ")})`);
});

// Stop taking requests, let running ones finish for up to 10 seconds, then close the database and exit.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    console.log(`${signal}: shutting down`);
    server.closeIdleConnections();
    const deadline = setTimeout(() => {
      console.error("requests still running after 10 s; closing their connections");
      server.closeAllConnections();
    }, 10_000).unref();
    server.close(() => {
      clearTimeout(deadline);
      void close().finally(() => process.exit(0));
    });
  });
}
