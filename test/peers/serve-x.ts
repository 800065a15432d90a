import { createInterface } from "node:readline";
import { startXApi } from "./x-api";

/**
 * Not a test: runs the X TEST DOUBLE (test/peers/x-api.ts, written from X's API reference, with its OAuth 2.0
 * endpoints from test/peers/oauth-server.ts) on loopback, so `npm start` can be pointed at it through the
 * base-URL settings and an OAuth connection tried end to end by hand:
 *
 *   npx tsx test/peers/serve-x.ts            # prints the variables to start Herald with
 *   X_CLIENT_ID=… X_CLIENT_SECRET=… X_API_BASE=… X_AUTH_BASE=… npm start
 *
 * Its authorize endpoint approves at once as the account it created. STAND_IN_TOKEN_TTL (seconds, default 7200)
 * is the access tokens' lifetime: below Herald's 5-minute margin every use refreshes. Commands on stdin:
 * `refuse` (every refresh → 400 invalid_grant: the account becomes reconnect_required), `accept`, `count`
 * (refreshes so far), `posts` (what was posted).
 */

const xApi = await startXApi({ oauth: { clientId: "herald-local", clientSecret: "herald-local-secret" } });
const user = xApi.addAccount("herald_local");
xApi.connectNext(user.id);
xApi.oauth?.authority.setAccessTokenTtl(Number(process.env.STAND_IN_TOKEN_TTL || 7200));

console.log(`X stand-in on ${xApi.url} (account @${user.username}). Start Herald with:\n`);
console.log(`  X_CLIENT_ID=herald-local X_CLIENT_SECRET=herald-local-secret X_API_BASE=${xApi.url} X_AUTH_BASE=${xApi.url} npm start\n`);
console.log("Commands: refuse | accept | count | posts");

for await (const line of createInterface({ input: process.stdin })) {
  const command = line.trim();
  if (command === "refuse") xApi.oauth?.authority.refuseRefreshes(true);
  else if (command === "accept") xApi.oauth?.authority.refuseRefreshes(false);
  else if (command === "count") console.log(`refreshes: ${xApi.oauth?.authority.refreshCount ?? 0}`);
  else if (command === "posts") console.log(JSON.stringify(xApi.postsOf(user.id).map((p) => ({ id: p.id, text: p.posted }))));
  else if (command) console.log("Commands: refuse | accept | count | posts");
}
await xApi.stop();
