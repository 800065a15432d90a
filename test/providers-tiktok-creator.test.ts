import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tiktokAdapter } from "../lib/platforms/tiktok/adapter";
import { parseTikTokAnswer } from "../lib/platforms/tiktok/api";
import { postSettings } from "../lib/platforms/tiktok/creator";
import type { MediaRef } from "../lib/providers/types";
import { accountContext, providerFailure, recordingProgress, rendition } from "./peers/adapter-context";
import { serveRangeFile, writeBigMp4 } from "./peers/range-file-host";
import { startTikTokApi, type TikTokApiPeer } from "./peers/tiktok-api";

/**
 * TikTok's creator_info before a post (lib/platforms/tiktok/creator.ts): Herald's SELF_ONLY only when TikTok
 * offers it, the creator's longest video enforced, comment/duet/stitch settings followed. The adapter against
 * the stand-in (test/peers/tiktok-api.ts) with a generated MP4; the rule itself directly.
 */

let dir: string;
let file: Awaited<ReturnType<typeof serveRangeFile>>;
let tt: TikTokApiPeer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "herald-tiktok-creator-"));
  await writeBigMp4(join(dir, "v.mp4"), join(__dirname, "fixtures/media/clip-64x48-12fps-2s.mp4"), 300 * 1024);
  file = await serveRangeFile(join(dir, "v.mp4"));
  tt = await startTikTokApi({ processingPolls: 0 });
});

afterAll(async () => {
  await Promise.all([file?.stop(), tt?.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

const video = (durationMs: number | null): MediaRef => ({ url: file.url, mime_type: "video/mp4", alt_text: null, duration_ms: durationMs });

function creator() {
  const { user, token } = tt.addUser();
  const account = accountContext({ platform: "tiktok", instanceUrl: tt.url, username: user.username, credentials: { access_token: token } });
  return { user, account };
}

const publish = (account: ReturnType<typeof creator>["account"], durationMs: number | null = 2000) =>
  tiktokAdapter.publish(account, rendition(["caption"], {}, { media: [video(durationMs)] }), recordingProgress());

describe("postSettings (pure)", () => {
  const base = { privacy_level_options: ["SELF_ONLY"], max_video_post_duration_sec: 60 };
  it("SELF_ONLY with the creator's disabled interactions", () => {
    expect(postSettings({ ...base, comment_disabled: true, duet_disabled: false, stitch_disabled: true }, 60_000)).toEqual({
      privacy_level: "SELF_ONLY",
      disable_comment: true,
      disable_duet: false,
      disable_stitch: true,
    });
  });
  it("a duration just over the limit is refused; an unknown duration is left to TikTok", () => {
    expect(() => postSettings(base, 60_001)).toThrow("at most 60 s");
    expect(postSettings(base, null).privacy_level).toBe("SELF_ONLY");
  });
  it("malformed options offer nothing", () => {
    expect(() => postSettings({ privacy_level_options: "SELF_ONLY" }, 1)).toThrow("TikTok offers no privacy level");
  });
});

describe("tiktok adapter with creator_info", () => {
  it("posts SELF_ONLY and follows the creator's comment, duet and stitch settings", async () => {
    const { user, account } = creator();
    tt.setCreator(user, { comment_disabled: true, duet_disabled: true, stitch_disabled: false });
    const out = await publish(account);
    const p = tt.publishes.get(out.external_id ?? "")!;
    expect(p).toMatchObject({ privacy: "SELF_ONLY", disabled: { comment: true, duet: true, stitch: false } });
    expect(out.external_url).toBe(`https://www.tiktok.com/@${user.username}`);
  });

  it("SELF_ONLY not offered: fails at once, not retryable, naming the options; nothing is initialized", async () => {
    const { user, account } = creator();
    tt.setCreator(user, { privacy_level_options: ["PUBLIC_TO_EVERYONE", "FOLLOWER_OF_CREATOR"] });
    const before = tt.publishes.size;
    const err = await providerFailure(publish(account));
    expect(err.info).toMatchObject({ kind: "validation", code: "privacy_level_unavailable", retryable: false });
    expect(err.message).toContain("PUBLIC_TO_EVERYONE, FOLLOWER_OF_CREATOR");
    expect(tt.publishes.size).toBe(before);
  });

  it("a video longer than the creator may post: fails at once, saying the limit", async () => {
    const { user, account } = creator();
    tt.setCreator(user, { max_video_post_duration_sec: 1 });
    const before = tt.publishes.size;
    const err = await providerFailure(publish(account, 2000));
    expect(err.info).toMatchObject({ kind: "validation", code: "video_too_long", retryable: false });
    expect(err.message).toContain("at most 1 s");
    expect(tt.publishes.size).toBe(before);
  });
});

describe("TikTok answers (pure)", () => {
  it("reads publicaly_available_post_id's int64 numbers as the digits sent, and nothing else", () => {
    const text =
      '{"data":{"status":"PUBLISH_COMPLETE","publicaly_available_post_id":[7300000000000000001, 7300000000000000123],"uploaded_bytes":9007199254740993},"error":{"code":"ok","message":"\\"publicaly_available_post_id\\":[1]"}}';
    const parsed = parseTikTokAnswer<{ data: { publicaly_available_post_id: string[]; uploaded_bytes: number }; error: { message: string } }>(text);
    expect(parsed?.data.publicaly_available_post_id).toEqual(["7300000000000000001", "7300000000000000123"]);
    // JSON.parse alone rounds them.
    expect(String(JSON.parse(text).data.publicaly_available_post_id[0])).not.toBe("7300000000000000001");
    // Other numbers, and the same words inside a string, are left as JSON has them.
    expect(parsed?.data.uploaded_bytes).toBe(JSON.parse(text).data.uploaded_bytes);
    expect(parsed?.error.message).toBe('"publicaly_available_post_id":[1]');
    expect(parseTikTokAnswer('{"data":{"publicaly_available_post_id":[]}}')).toEqual({ data: { publicaly_available_post_id: [] } });
    expect(parseTikTokAnswer("not json")).toBeNull();
  });
});
