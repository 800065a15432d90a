/**
 * What the client-address relay on PORT costs (local/services/client-address-relay.ts): the same request through
 * `npm start`'s PORT and straight to wrangler dev's API_WORKER_PORT behind it, measured side by side in one run,
 * alternating rounds so that both see the same machine: GET /healthz (one statement), clients keeping their
 * connections alive, one client and 16 concurrent.
 *
 * Run: npx tsx bench/client-address-relay.ts [requests per round, default 300] [rounds, default 4]
 */
import { startHerald } from "../local/services/herald-process";
import { fmt, measure, printTable, type Timing } from "./stats";

const N = Number(process.argv[2] ?? 300);
const ROUNDS = Number(process.argv[3] ?? 4);

const herald = await startHerald();
try {
  const targets = { "through the relay (PORT)": herald.ports.PORT, "wrangler dev alone (API_WORKER_PORT)": herald.ports.API_WORKER_PORT };
  const results: Record<string, Record<string, Timing[]>> = {};
  const cases = { "GET /healthz, 1 client": 1, "GET /healthz, 16 clients": 16 };
  for (let round = 0; round < ROUNDS; round++) {
    for (const [caseName, concurrency] of Object.entries(cases)) {
      for (const [target, port] of Object.entries(targets)) {
        const url = `http://127.0.0.1:${port}/healthz`;
        const timing = await measure(
          async () => {
            const res = await fetch(url);
            await res.arrayBuffer();
          },
          { n: N, concurrency, warmup: 10 },
        );
        ((results[caseName] ??= {})[target] ??= []).push(timing);
      }
    }
  }
  // Each figure is the median over the rounds.
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const rows = Object.entries(results).map(([caseName, byTarget]) => {
    const [relay, direct] = Object.values(byTarget);
    const p50 = [median(relay.map((t) => t.p50)), median(direct.map((t) => t.p50))];
    const rate = [median(relay.map((t) => t.perSecond)), median(direct.map((t) => t.perSecond))];
    return {
      case: caseName,
      "p50 relay": fmt(p50[0]),
      "p50 direct": fmt(p50[1]),
      "p50 ratio": (p50[0] / p50[1]).toFixed(2),
      "req/s relay": rate[0].toFixed(0),
      "req/s direct": rate[1].toFixed(0),
      "req/s ratio": (rate[0] / rate[1]).toFixed(2),
    };
  });
  printTable(rows);
} finally {
  await herald.stop();
}
