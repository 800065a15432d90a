import fs from "node:fs";
import path from "node:path";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DOCS_SCRIPT_PATH } from "../lib/http/docs-page";
import { startHerald } from "../local/services/herald-process";
import { REPO_ROOT } from "../local/services/wrangler";

/**
 * /docs in a real browser, offline: Debian's Chromium (as test/browser-passkey.test.ts launches it) against Herald
 * started with `npm start`, every request to any other host refused. Scalar's script comes from the gateway's static
 * assets, renders the OpenAPI document's operations, and nothing on the page breaks its Content-Security-Policy.
 * A screenshot is kept in test-artifacts/.
 */
const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium) console.warn(`browser-docs: skipped, no Chromium at ${CHROMIUM} (\`apt-get install -y chromium\`, or set CHROMIUM_PATH).`);
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

describe.skipIf(!hasChromium)("/docs in Chromium, offline", () => {
  let herald: Awaited<ReturnType<typeof startHerald>>;
  let browser: Browser;

  beforeAll(async () => {
    [herald, browser] = await Promise.all([startHerald(), chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true })]);
  }, 150_000);

  afterAll(async () => {
    await browser?.close();
    await herald?.stop();
  }, 60_000);

  it("renders every operation group from Herald's own script, asking no other host and breaking no policy", { timeout: 90_000 }, async () => {
    const context = await browser.newContext();
    const origin = new URL(herald.url).origin;
    const elsewhere: string[] = [];
    await context.route("**/*", (route) => {
      const url = route.request().url();
      if (url.startsWith(`${origin}/`) || url.startsWith("data:") || url.startsWith("blob:")) return route.continue();
      elsewhere.push(url);
      return route.abort("internetdisconnected");
    });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("console", (message) => {
      if (message.type() === "error" && /Content.Security.Policy|Refused to/i.test(message.text())) problems.push(message.text());
    });
    const scriptAnswers: number[] = [];
    page.on("response", (res) => res.url() === `${origin}${DOCS_SCRIPT_PATH}` && scriptAnswers.push(res.status()));

    const res = await page.goto(`${herald.url}/docs`);
    expect(res?.status()).toBe(200);
    expect(res?.headers()["content-security-policy"]).toContain("default-src 'none'");
    expect(await page.title()).toBe("Herald API reference");
    // The operations, as Scalar renders them from /openapi.json: the first group's summaries in the sidebar, and every
    // group's operations by method and path (publish-now's among them).
    await expect.poll(() => page.getByText("The signed-in user's profile").count(), { timeout: 45_000 }).toBeGreaterThan(0);
    // (Scalar renders the sections below the first a moment later.)
    await expect.poll(() => page.locator("body").innerText(), { timeout: 45_000 }).toContain("/publications/{id}/publish-now");
    expect(await page.locator("body").innerText()).toContain("/media");
    expect(scriptAnswers).toEqual([200]);

    fs.mkdirSync(path.join(REPO_ROOT, "test-artifacts"), { recursive: true });
    await page.screenshot({ path: path.join(REPO_ROOT, "test-artifacts", "docs.png") });
    expect(elsewhere).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});
