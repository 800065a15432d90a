// Node only (launcher, tests, benchmarks): the Neon driver needs a WebSocket implementation there.
import { neonConfig } from "@neondatabase/serverless";
import ws from "ws";

neonConfig.webSocketConstructor = ws;
