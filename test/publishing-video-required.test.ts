import { describe, expect, it } from "vitest";
import { api, newUser, newWorkspace } from "./helpers/harness";
import { newAccount } from "./helpers/publishing";

/** A TikTok or YouTube post is a video: a publication to one without a video is a 422 at creation naming the platform. */
describe("video platforms at creation", () => {
  it.each(["tiktok", "youtube"] as const)("%s: text only → 422 on media_ids, naming the platform", async (platform) => {
    const owner = await newUser();
    const ws = await newWorkspace(owner);
    const account = await newAccount(ws, owner.id, platform, { credentials: { access_token: "unused" } });
    const res = await api("POST", "/publications", {
      token: owner.token,
      json: { workspace_id: ws, title: "Clip", source_text: "No video here", destinations: [{ social_account_id: account }] },
    });
    expect(res.status).toBe(422);
    const error = res.body.errors.find((e: { location: string }) => e.location === "body.media_ids");
    expect(error.message).toMatch(platform === "tiktok" ? /TikTok post is exactly one video/ : /YouTube post is exactly one video/);
  });
});
