import { personalOrganizationId } from "../lib/billing/organizations";
import { socialAccounts, workspaceMembers, workspaces } from "../db/schema";
import { issueToken } from "../lib/auth/tokens";
import { createUser } from "../lib/auth/users";
import { openDb } from "../lib/db/client";
import type { Env } from "../lib/env";
import { newId } from "../lib/ids";
import { encryptJson } from "../lib/secrets";
import gateway from "../functions/all-groups";

/** A workspace with `perPublication` webhook accounts and `publications` drafts addressed to all of them, made through the API. */
export async function seedWebhookDrafts(env: Env, url: string, secret: string, publications: number, perPublication: number) {
  const { db, close } = openDb(env);
  const user = await createUser(db, { email: `bench-${Date.now()}@example.test`, displayName: "Bench", isAdmin: false });
  const { token } = await issueToken(db, user.id, "bench");
  const workspaceId = newId("wsp");
  await db.insert(workspaces).values({ id: workspaceId, name: "Bench", organizationId: await personalOrganizationId(db, user.id), createdBy: user.id });
  await db.insert(workspaceMembers).values({ workspaceId, userId: user.id, role: "owner" });
  const accounts = Array.from({ length: perPublication }, () => newId("acc"));
  const credentials = await encryptJson(env.INSTANCE_SECRET_KEY!, { secret });
  await db
    .insert(socialAccounts)
    .values(accounts.map((id) => ({ id, workspaceId, platform: "webhook" as const, url, credentialsCiphertext: credentials, createdBy: user.id })));
  await close();
  const ids: string[] = [];
  for (let i = 0; i < publications; i += 10) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(10, publications - i) }, async (_, j) => {
        const res = await gateway.request(
          "/publications",
          {
            method: "POST",
            headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
            body: JSON.stringify({
              workspace_id: workspaceId,
              title: `Bench ${i + j}`,
              source_text: `Benchmark post ${i + j}`,
              destinations: accounts.map((social_account_id) => ({ social_account_id })),
            }),
          },
          env,
        );
        if (res.status !== 201) throw new Error(`create ${res.status} ${await res.text()}`);
        return ((await res.json()) as { id: string }).id;
      }),
    );
    ids.push(...batch);
  }
  return { token, ids, workspaceId };
}
