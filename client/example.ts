/**
 * The typed client in a few lines: create a publication, publish it now, and print each rendition's status until its
 * delivery ends. Against `npm start` (or any Herald):
 *
 *   HERALD_URL=http://127.0.0.1:8787 HERALD_TOKEN=hld_… HERALD_WORKSPACE_ID=wsp_… HERALD_ACCOUNT_ID=acc_… npx tsx client/example.ts
 */
import { createHeraldClient } from "./index";

function setting(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`Set ${name} (see the comment at the top of client/example.ts).`);
  return value;
}

const herald = createHeraldClient({ baseUrl: setting("HERALD_URL"), token: setting("HERALD_TOKEN") });

const created = await herald.POST("/publications", {
  body: {
    workspace_id: setting("HERALD_WORKSPACE_ID"),
    title: "Hello from the typed client",
    source_text: "Published with Herald's typed client.",
    destinations: [{ social_account_id: setting("HERALD_ACCOUNT_ID") }],
  },
});
if (!created.data) throw new Error(`POST /publications answered ${created.response.status}: ${created.error?.detail}`);
const { id } = created.data;

// Retried on network errors, 5xx and 429 under one Idempotency-Key: it publishes once.
const queued = await herald.publishNow(id, { expected_revision: created.data.revision });
if (!queued.data) throw new Error(`publish-now answered ${queued.response.status}: ${queued.error?.detail}`);
console.log(`publication ${id}: publishing (job ${queued.data.job_id})`);

const seen = new Map<string, string>();
for (let polls = 0; polls < 120; polls++) {
  const read = await herald.GET("/publications/{id}", { params: { path: { id } } });
  if (!read.data) throw new Error(`GET /publications/${id} answered ${read.response.status}: ${read.error?.detail}`);
  for (const rendition of read.data.renditions) {
    if (seen.get(rendition.id) === rendition.status) continue;
    seen.set(rendition.id, rendition.status);
    console.log(`rendition ${rendition.id} (${rendition.platform}): ${rendition.status}${rendition.external_url ? ` ${rendition.external_url}` : ""}`);
  }
  if (read.data.status !== "publishing") {
    console.log(`publication ${id}: ${read.data.status}`);
    break;
  }
  await new Promise((resolve) => setTimeout(resolve, 500));
}
