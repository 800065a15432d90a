import type { ProviderDriver } from "../driver";
import { blueskyDriver } from "./bluesky";
import { discordDriver } from "./discord";
import { facebookDriver } from "./facebook";
import { instagramDriver } from "./instagram";
import { linkedinDriver } from "./linkedin";
import { mastodonDriver } from "./mastodon";
import { threadsDriver } from "./threads";
import { tiktokDriver } from "./tiktok";
import { webhookDriver } from "./webhook";
import { xDriver } from "./x";
import { youtubeDriver } from "./youtube";

/** Every provider the conformance suite runs (test/conformance/driver.ts says how to add one). */
export const DRIVERS: ProviderDriver[] = [
  blueskyDriver,
  mastodonDriver,
  webhookDriver,
  discordDriver,
  xDriver,
  linkedinDriver,
  threadsDriver,
  facebookDriver,
  instagramDriver,
  tiktokDriver,
  youtubeDriver,
];
