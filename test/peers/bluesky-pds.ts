import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { freePort } from "../../local/services/ports";

/**
 * A REAL Bluesky PDS (@atproto/pds, the server bsky.social runs) on loopback, with its DID directory
 * (@did-plc/server on an in-memory database), for tests. Nothing here is a double: Herald's adapter
 * speaks XRPC to it exactly as it would to bsky.social.
 *
 * Not run: an AppView (timelines, profiles with avatars, notifications, like counts). The PDS is
 * configured with no AppView, so app.bsky.* reads that need one fail, as they would against a bare PDS.
 *
 * Loading the modules takes about 3 s: start one per test file, in beforeAll.
 */

export interface PdsAccount {
  did: string;
  handle: string;
  email: string;
  /** The account's main password (never given to Herald). */
  password: string;
  /** An app password made with com.atproto.server.createAppPassword: what Herald connects with. */
  appPassword: string;
  accessJwt: string;
}

export interface PdsPeer {
  url: string;
  createAccount(name?: string): Promise<PdsAccount>;
  /** XRPC GET, unauthenticated (or with a token): for tests that read the repository back. */
  get<T = any>(method: string, query: Record<string, string>, token?: string): Promise<{ status: number; body: T }>;
  post<T = any>(method: string, body: unknown, token?: string): Promise<{ status: number; body: T }>;
  /** Every app.bsky.feed.post record of a repository. */
  listPosts(did: string): Promise<{ uri: string; cid: string; value: any }[]>;
  stop(): Promise<void>;
}

let counter = 0;

export async function startPds(): Promise<PdsPeer> {
  // The PDS logs every request through pino; tests want quiet (set LOG_ENABLED=true to see them).
  process.env.LOG_ENABLED ??= "false";
  // Imported here so that test files that do not start a PDS never pay for loading it.
  const [{ PDS, envToCfg, envToSecrets }, plc, { Secp256k1Keypair }] = await Promise.all([
    import("@atproto/pds"),
    import("@did-plc/server"),
    import("@atproto/crypto"),
  ]);
  const plcServer = plc.PlcServer.create({ db: plc.Database.mock(), port: await freePort() });
  const plcHttp = await plcServer.start();
  const plcUrl = `http://localhost:${(plcHttp.address() as AddressInfo).port}`;

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "herald-pds-"));
  const port = await freePort();
  const rotationKey = await Secp256k1Keypair.create({ exportable: true });
  const recoveryKey = await Secp256k1Keypair.create();
  const env: Parameters<typeof envToCfg>[0] = {
    devMode: true,
    hostname: "localhost",
    port,
    dataDirectory: dir,
    blobstoreDiskLocation: path.join(dir, "blobs"),
    didPlcUrl: plcUrl,
    recoveryDidKey: recoveryKey.did(),
    plcRotationKeyK256PrivateKeyHex: Buffer.from(await rotationKey.export()).toString("hex"),
    jwtSecret: randomBytes(16).toString("hex"),
    adminPassword: randomBytes(16).toString("hex"),
    serviceHandleDomains: [".test"],
    inviteRequired: false,
    disableSsrfProtection: true,
    crawlers: [],
    rateLimitsEnabled: false,
  };
  const pds = await PDS.create(envToCfg(env), envToSecrets(env));
  await pds.start();
  const url = `http://localhost:${port}`;

  const call = async <T>(method: string, init: { query?: Record<string, string>; body?: unknown; token?: string }) => {
    const target = new URL(`${url}/xrpc/${method}`);
    for (const [k, v] of Object.entries(init.query ?? {})) target.searchParams.set(k, v);
    const res = await fetch(target, {
      method: init.body === undefined ? "GET" : "POST",
      headers: { ...(init.body !== undefined ? { "content-type": "application/json" } : {}), ...(init.token ? { authorization: `Bearer ${init.token}` } : {}) },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
  };

  return {
    url,
    get: (method, query, token) => call(method, { query, token }),
    post: (method, body, token) => call(method, { body, token }),
    async createAccount(name) {
      const handle = `${name ?? "user"}${Date.now().toString(36)}${counter++}.test`;
      const email = `${handle}@example.test`;
      const password = randomBytes(12).toString("hex");
      const created = await call<{ did: string; accessJwt: string }>("com.atproto.server.createAccount", { body: { handle, email, password } });
      if (created.status !== 200) throw new Error(`createAccount: ${created.status} ${JSON.stringify(created.body)}`);
      const app = await call<{ password: string }>("com.atproto.server.createAppPassword", {
        body: { name: `herald-${counter++}` },
        token: created.body.accessJwt,
      });
      if (app.status !== 200) throw new Error(`createAppPassword: ${app.status} ${JSON.stringify(app.body)}`);
      return { did: created.body.did, handle, email, password, appPassword: app.body.password, accessJwt: created.body.accessJwt };
    },
    async listPosts(did) {
      const out = await call<{ records: { uri: string; cid: string; value: any }[] }>("com.atproto.repo.listRecords", {
        query: { repo: did, collection: "app.bsky.feed.post", limit: "100" },
      });
      return out.body.records;
    },
    async stop() {
      await pds.destroy();
      await plcServer.destroy();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
