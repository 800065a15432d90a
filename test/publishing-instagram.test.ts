import { describe, expect, it } from "vitest";
import { api, expectProblem, newUser, newWorkspace } from "./helpers/harness";
import { insertMediaRows } from "./helpers/media";
import { newAccount } from "./helpers/publishing";

/**
 * What Instagram cannot take is refused when the publication is created (422 naming instagram), not found at
 * publish time: no media, a video mixed with an image (a Reel is one video alone), a caption over 30 hashtags once
 * the segments are joined. One video alone is taken (a Reel).
 */

describe("Instagram destinations at creation", () => {
  it("refuses a publication without media, mixing a video with an image, or with 31 hashtags; takes an image or one video", async () => {
    const owner = await newUser();
    const ws = await newWorkspace(owner);
    const ig = await newAccount(ws, owner.id, "instagram", { credentials: { access_token: "not-used-here", page_id: "1" } });
    const hook = await newAccount(ws, owner.id, "webhook", { url: "https://receiver.example/hook" });
    const [image] = await insertMediaRows(ws, [{}]);
    const [video] = await insertMediaRows(ws, [{ mediaType: "video", mimeType: "video/mp4", durationMs: 1000 }]);
    const create = (body: Record<string, unknown>) =>
      api("POST", "/publications", { token: owner.token, json: { workspace_id: ws, source_text: "A picture.", ...body } });

    const textOnly = await create({ destinations: [{ social_account_id: hook }, { social_account_id: ig }] });
    expectProblem(textOnly, 422, "validation-error");
    expect(textOnly.body.errors).toEqual([
      { location: "body.media_ids", message: "instagram: An Instagram post needs an image or a video: attach one (media_ids)" },
    ]);

    const mixed = await create({ media_ids: [video, image], destinations: [{ social_account_id: ig }] });
    expectProblem(mixed, 422, "validation-error");
    expect(mixed.body.errors).toEqual([
      { location: "body.media_ids", message: "instagram: An Instagram Reel is one video alone; Herald does not mix videos with other media" },
    ]);

    const tags = Array.from({ length: 31 }, (_, i) => `#tag${i}`).join(" ");
    const tagged = await create({ media_ids: [image], source_text: tags, destinations: [{ social_account_id: ig }] });
    expectProblem(tagged, 422, "validation-error");
    expect(tagged.body.errors).toEqual([
      { location: "body.destinations[0].body", message: "An instagram caption carries at most 30 hashtags; this one has 31" },
    ]);

    // Without Instagram, text alone is fine; with an image Instagram takes it.
    expect((await create({ destinations: [{ social_account_id: hook }] })).status).toBe(201);
    const ok = await create({ media_ids: [image], destinations: [{ social_account_id: ig }] });
    expect(ok.status, ok.text).toBe(201);
    const reel = await create({ media_ids: [video], destinations: [{ social_account_id: ig }] });
    expect(reel.status, reel.text).toBe(201);
  });
});
