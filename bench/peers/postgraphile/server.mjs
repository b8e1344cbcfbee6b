// The bench's PostGraphile 5 peer (bench/run.ts starts it for the postgraphile cases): PostGraphile's
// recommended Amber preset over the schema `peer` (bench/seed.ts: `peer.pages`, a wiki page's columns, as
// the bare INSERT's table), served by grafserv on node:http, with GET /ready for the bench's start-up check.
// Nothing of Hubgraph is loaded: this measures PostGraphile's own create mutation on the same database.
import { createServer } from "node:http";
import { postgraphile } from "postgraphile";
import { PostGraphileAmberPreset } from "postgraphile/presets/amber";
import { makePgService } from "postgraphile/adaptors/pg";
import { grafserv } from "postgraphile/grafserv/node";

// PostGraphile 5 (grafast, @dataplan/pg) declares node >= 22 and reads through Promise.withResolvers(),
// which node 20 lacks: there every read answered "Cannot read properties of undefined (reading 'items')"
// (the executor's TypeError swallowed by its Promise.allSettled), while a create worked. Added where missing.
if (typeof Promise.withResolvers !== "function") {
  Promise.withResolvers = function withResolvers() {
    let resolve, reject;
    const promise = new this((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { promise, resolve, reject };
  };
}

const preset = {
  extends: [PostGraphileAmberPreset],
  pgServices: [makePgService({ connectionString: process.env.DATABASE_URL, schemas: ["peer"], poolConfig: { max: 20 } })],
  grafserv: { watch: false, graphiqlOnGraphQLGET: false },
  grafast: { explain: false },
};

const pgl = postgraphile(preset);
const serv = pgl.createServ(grafserv);
const handle = serv.createHandler();
const server = createServer((req, res) => {
  if (req.url === "/ready") {
    res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    return;
  }
  handle(req, res);
});
server.listen(Number(process.env.PORT), process.env.HOST ?? "127.0.0.1");
const stop = () => server.close(() => pgl.release().then(() => process.exit(0)));
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
