import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true";
// Keep wrangler/miniflare (used by the workerd project) quiet and offline.
process.env.CLOUDFLARE_CF_FETCH_ENABLED ??= "false";
process.env.WRANGLER_SEND_METRICS ??= "false";
process.env.WRANGLER_SEND_ERROR_REPORTS ??= "false";

export default defineConfig({
  test: {
    // One globalSetup for the whole run, on the root project: it starts embedded Postgres, the Neon
    // WebSocket relay and local SQS exactly once, whichever projects run (vitest always runs the root
    // project's globalSetup), and both projects inherit what it provides (`env`, `sqsPort`).
    globalSetup: ["test/setup/global.ts"],
    projects: [
      {
        test: {
          name: "node",
          include: ["test/**/*.test.ts"],
          exclude: ["test/workerd/**"],
          setupFiles: ["test/setup/node-driver.ts"],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        // The gateway and the tests run inside workerd (Miniflare); the Worker's bindings are the
        // real servers' addresses, injected from the globalSetup above when the pool starts.
        plugins: [
          cloudflareTest(({ inject }) => ({
            wrangler: { configPath: "test/workerd/wrangler.toml" },
            // A small upload limit, so that a test can send a body over it without sending 25 MiB through the pool.
            miniflare: { bindings: { ...inject("env"), MEDIA_MAX_BYTES: String(4 * 1024 * 1024) } },
          })),
        ],
        test: {
          name: "workerd",
          include: ["test/workerd/**/*.test.ts"],
          // Pre-bundle the heavy dependencies (the AWS SDK above all) instead of feeding workerd hundreds of
          // modules one by one: the first request to the gateway drops from about 6 s to about 3 s.
          deps: {
            optimizer: {
              ssr: {
                enabled: true,
                include: ["@aws-sdk/client-sqs", "drizzle-orm", "@neondatabase/serverless", "hono", "@hono/zod-openapi", "zod", "@simplewebauthn/server"],
              },
            },
          },
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
