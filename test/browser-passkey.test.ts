import fs from "node:fs";
import path from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomText } from "../lib/ids";
import { REPO_ROOT } from "../local/services/wrangler";
import { startHerald } from "../local/services/herald-process";

/**
 * The passkey path in a real browser (CONTRACT §8): Debian's Chromium, headless, driven by playwright-core,
 * with a CDP virtual authenticator (STACK.md) against Herald started with `npm start`. A person pastes the
 * bootstrap administrator's token, registers a passkey by keyboard, forgets the token, signs in with the
 * passkey, sees their API tokens and revokes one, reads the audit evidence as that session, signs out, signs in
 * again and deletes the passkey.
 * A screenshot of the page is kept in test-artifacts/.
 */
const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium) {
  console.warn(
    `browser-passkey: skipped, no Chromium at ${CHROMIUM}. Install it with \`apt-get install -y chromium\` (or set CHROMIUM_PATH), then run npm test again.`,
  );
}
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
const ARTIFACTS = path.join(REPO_ROOT, "test-artifacts");

describe.skipIf(!hasChromium)("the /account/security page in Chromium with a virtual authenticator", () => {
  const token = `hld_${randomText(40)}`;
  const email = `browser-${randomText(6)}@example.test`;
  let herald: Awaited<ReturnType<typeof startHerald>>;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    [herald, browser] = await Promise.all([
      startHerald({ BOOTSTRAP_ADMIN_TOKEN: token, BOOTSTRAP_ADMIN_EMAIL: email }),
      chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true }),
    ]);
    const context = await browser.newContext();
    page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send("WebAuthn.enable");
    await cdp.send("WebAuthn.addVirtualAuthenticator", {
      options: {
        protocol: "ctap2",
        transport: "internal",
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
    page.on("dialog", (dialog) => void dialog.accept());
  }, 150_000);

  afterAll(async () => {
    await browser?.close();
    await herald?.stop();
  }, 60_000);

  const status = () => page.locator("#status");

  it("registers a passkey with a pasted token, signs in with it, revokes a token, reads audit evidence, signs out, and deletes it", {
    timeout: 120_000,
  }, async () => {
    await page.goto(`${herald.url}/account/security`);
    await expect.poll(() => page.locator("#sign-in").isVisible()).toBe(true);
    expect(await page.title()).toBe("Account security · Herald");

    // By keyboard: Tab to the token field, type, Enter; then the name field, type, Enter.
    await page.locator("#token").focus();
    await page.keyboard.type(token);
    await page.keyboard.press("Enter");
    await expect.poll(() => page.locator("#who").textContent()).toContain(email);
    await page.locator("#passkey-name").focus();
    await page.keyboard.type("Virtual key");
    await page.keyboard.press("Enter");
    await expect.poll(() => status().textContent(), { timeout: 15_000 }).toBe("Passkey registered.");
    expect(await page.locator("#passkeys li strong").allTextContents()).toEqual(["Virtual key"]);

    // Forget the token: from now on only the passkey gets this person in.
    await page.locator("#forget-token").focus();
    await page.keyboard.press("Enter");
    await expect.poll(() => page.locator("#sign-in").isVisible()).toBe(true);
    await page.locator("#sign-in").focus();
    await page.keyboard.press("Enter");
    await expect.poll(() => status().textContent(), { timeout: 15_000 }).toBe("Signed in.");
    expect(await page.locator("#how").textContent()).toBe("with a passkey");
    expect(await page.locator("#passkeys li span").first().textContent()).not.toContain("last used never");

    // The session cookie is HttpOnly and SameSite=Strict; the page's script cannot read it.
    const cookies = await page.context().cookies();
    expect(cookies.find((c) => c.name === "herald_session")).toMatchObject({ httpOnly: true, sameSite: "Strict", secure: false, path: "/" });
    expect(await page.evaluate(() => document.cookie)).not.toContain("herald_session");

    // The tokens section: the bootstrap token is listed; one made through the API appears after a reload (the
    // session cookie keeps the person signed in) and is revoked from the page, after which it no longer works.
    await expect.poll(() => page.locator("#tokens li strong").allTextContents()).toEqual(["bootstrap"]);
    const made = await fetch(`${herald.url}/auth/tokens`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "ci-deploy", expires_in_days: 30 }),
    });
    expect(made.status).toBe(201);
    const ciToken = ((await made.json()) as { token: string }).token;
    await page.reload();
    await expect.poll(() => page.locator("#tokens li strong").allTextContents()).toEqual(["bootstrap", "ci-deploy"]);
    const [bootstrapMeta, ciMeta] = await page.locator("#tokens li span").allTextContents();
    expect(bootstrapMeta).toContain("never expires");
    expect(ciMeta).toMatch(/ · expires \S/);
    await page.getByRole("button", { name: "Revoke token ci-deploy" }).click();
    await expect.poll(() => status().textContent(), { timeout: 15_000 }).toBe("Token revoked.");
    expect(await page.locator("#tokens li strong").allTextContents()).toEqual(["bootstrap"]);
    expect((await fetch(`${herald.url}/auth/me`, { headers: { authorization: `Bearer ${ciToken}` } })).status).toBe(401);

    fs.mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, "account-security.png"), fullPage: true });

    // An administrator's browser session reads the audit evidence; the same person's token may not.
    const evidence = await page.evaluate(async () => {
      const res = await fetch("/admin/audit-evidence?limit=20");
      return { status: res.status, body: (await res.json()) as { items: { action: string }[] } };
    });
    expect(evidence.status).toBe(200);
    const actions = evidence.body.items.map((e: { action: string }) => e.action);
    expect(actions).toEqual(expect.arrayContaining(["passkey.add", "session.sign_in"]));
    const withToken = await fetch(`${herald.url}/admin/audit-evidence`, { headers: { authorization: `Bearer ${token}` } });
    expect(withToken.status).toBe(403);

    // Sign out, back in, then delete the passkey: the session it opened ends with it.
    await page.locator("#sign-out").focus();
    await page.keyboard.press("Enter");
    await expect.poll(() => status().textContent()).toBe("Signed out.");
    expect((await page.context().cookies()).find((c) => c.name === "herald_session")).toBeUndefined();
    await page.locator("#sign-in").click();
    await expect.poll(() => status().textContent(), { timeout: 15_000 }).toBe("Signed in.");
    await page.getByRole("button", { name: "Delete passkey Virtual key" }).click();
    await expect.poll(() => page.locator("#sign-in").isVisible(), { timeout: 15_000 }).toBe(true);
    const after = await fetch(`${herald.url}/auth/security`, { headers: { authorization: `Bearer ${token}` } });
    expect(((await after.json()) as { passkeys: unknown[] }).passkeys).toEqual([]);
  });
});
