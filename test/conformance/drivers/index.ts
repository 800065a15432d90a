import type { ProviderDriver } from "../driver";
import { blueskyDriver } from "./bluesky";
import { mastodonDriver } from "./mastodon";
import { webhookDriver } from "./webhook";

/** Every provider the conformance suite runs (test/conformance/driver.ts says how to add one). */
export const DRIVERS: ProviderDriver[] = [blueskyDriver, mastodonDriver, webhookDriver];
