#!/usr/bin/env node
// The `hubgraph` bin: the CLI is TypeScript and runs through tsx, as the server does (`npm start`).
import { register } from "tsx/esm/api";

register();
await import("./main.ts");
