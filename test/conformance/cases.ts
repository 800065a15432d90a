import { expect, vi } from "vitest";
import { MAX_ATTEMPTS } from "../../lib/jobs/retry-policy";
import { isOAuthPlatform } from "../../lib/providers/oauth/platforms";
import { expectData, expectProblem } from "../helpers/typed";
import type { ConnectedAccount, PlatformPost, ProviderDriver, SuiteContext, Workspace } from "./driver";
import { newCaseWorkspace, publishSegments, pump, readPublication, settle, uploadImage, uploadVideo, type Publication } from "./herald";

/**
 * The conformance cases (issue 28), one set for every provider: each goes through Herald's API and its real
 * delivery pipeline against the driver's platform server, and reads back what the PLATFORM holds. A case
 * answers a note for the table (e.g. what a platform without replies does with a thread), or nothing.
 * A case that does not apply says so from a capability the driver declares (`notApplicable`), with its reason.
 */

export interface ConformanceCase {
  name: string;
  notApplicable?(driver: ProviderDriver): string | null;
  run(driver: ProviderDriver, suite: SuiteContext): Promise<string | undefined>;
}

/** The longest segment body Herald's API takes (functions/publications/requests.ts). */
const SEGMENT_BODY_MAX = 50_000;

const tag = () => Math.random().toString(36).slice(2, 8);

async function connected(driver: ProviderDriver, suite: SuiteContext): Promise<{ ws: Workspace; account: ConnectedAccount }> {
  const ws = await newCaseWorkspace(suite);
  return { ws, account: await driver.connect(ws) };
}

/**
 * A publication of these segments as the text cases send it: with nothing attached, or, for a platform where a
 * post needs media (`driver.requiresMedia`), with one image (Instagram) or one video made by the test (TikTok,
 * YouTube), since text alone is refused at creation.
 */
async function publishText(driver: ProviderDriver, suite: SuiteContext, ws: Workspace, accountId: string, bodies: string[]): Promise<Publication> {
  const required = driver.requiresMedia?.kind;
  const media: string[] = [];
  if (required === "image") media.push((await uploadImage(suite, ws, `Required image ${tag()}`)).id);
  if (required === "video") media.push((await uploadVideo(suite, ws)).id);
  return publishSegments(ws, accountId, bodies, media);
}

const only = (p: Publication) => {
  expect(p.renditions).toHaveLength(1);
  return p.renditions[0];
};

/** Nothing Herald answers carries a credential the account was connected with. */
function expectNoSecrets(account: ConnectedAccount, answer: unknown) {
  const text = JSON.stringify(answer);
  for (const secret of account.secrets) expect(text.includes(secret), "a credential appears in Herald's answer").toBe(false);
}

/** The rendition's segments, as Herald recorded them, name the platform's posts. */
function expectRecorded(p: Publication, posts: PlatformPost[]) {
  const r = only(p);
  expect(r.status).toBe("published");
  expect(r.external_id).toBe(posts[0].id);
  expect(r.external_url).toEqual(expect.any(String));
  return r;
}

export const CASES: ConformanceCase[] = [
  {
    name: "connect",
    async run(driver, suite) {
      const { ws, account } = await connected(driver, suite);
      const list = expectData(await ws.client.GET("/accounts", { params: { query: { workspace_id: ws.workspaceId } } }));
      const mine = list.find((a) => a.id === account.id);
      expect(mine).toMatchObject({ platform: driver.platform, is_active: true });
      expectNoSecrets(account, list);
      // The provider list says what was just shown: this platform connects and publishes here.
      const providers = expectData(await ws.client.GET("/accounts/providers", { params: { query: { workspace_id: ws.workspaceId } } }));
      expect(providers.find((p) => p.platform === driver.platform)?.readiness).toMatchObject({ state: "ready", connectable: true, publishable: true });
      expect(await driver.posts(account)).toEqual([]);
      return undefined;
    },
  },
  {
    name: "single post",
    async run(driver, suite) {
      const { ws, account } = await connected(driver, suite);
      const text = `Conformance: one post ${tag()}`;
      const pub = await publishText(driver, suite, ws, account.id, [text]);
      const done = await settle(suite, ws, pub.id);
      expect(done.status).toBe("published");
      const posts = await driver.posts(account);
      expect(posts).toHaveLength(1);
      expect(posts[0].parts ?? [posts[0].text]).toEqual([text]);
      expectRecorded(done, posts);
      expectNoSecrets(account, done);
      return undefined;
    },
  },
  {
    name: "thread",
    async run(driver, suite) {
      const { ws, account } = await connected(driver, suite);
      const t = tag();
      const bodies = [`Thread ${t}, first.`, `Thread ${t}, second.`, `Thread ${t}, third.`];
      const behaviour = driver.threads;
      if (behaviour.kind === "refused") {
        const res = await ws.client.POST("/publications", {
          body: {
            workspace_id: ws.workspaceId,
            source_text: bodies.join(" "),
            destinations: [{ social_account_id: account.id, segments: bodies.map((body) => ({ body })) }],
          },
        });
        const problem = expectProblem(res, 422, "validation-error");
        expect(problem.errors?.[0]?.location).toMatch(/^body\.destinations\[0\]/);
        expect(await driver.posts(account)).toEqual([]);
        return `refused at creation: ${behaviour.documented}`;
      }
      const pub = await publishText(driver, suite, ws, account.id, bodies);
      const done = await settle(suite, ws, pub.id);
      expect(done.status).toBe("published");
      const posts = await driver.posts(account);
      const segments = only(done).segments;
      expect(segments.map((s) => s.status)).toEqual(["published", "published", "published"]);
      switch (behaviour.kind) {
        case "replies":
        case "consecutive":
          expect(posts.map((p) => p.text)).toEqual(bodies);
          expect(segments.map((s) => s.external_id)).toEqual(posts.map((p) => p.id));
          expect(posts.map((p) => p.replyTo)).toEqual(behaviour.kind === "replies" ? [null, posts[0].id, posts[1].id] : [null, null, null]);
          expectRecorded(done, posts);
          return behaviour.kind === "replies" ? "reply chain" : behaviour.documented;
        case "one_delivery":
          expect(posts).toHaveLength(1);
          expect(posts[0].parts).toEqual(bodies);
          expectRecorded(done, posts);
          return behaviour.documented;
        case "one_post":
          expect(posts).toHaveLength(1);
          for (const body of bodies) expect(posts[0].text).toContain(body);
          expectRecorded(done, posts);
          return behaviour.documented;
      }
      return undefined;
    },
  },
  {
    name: "image with alt text",
    notApplicable: (driver) => (driver.images.supported ? null : driver.images.reason),
    async run(driver, suite) {
      const { ws, account } = await connected(driver, suite);
      const alt = `A 40 by 30 test card (${tag()})`;
      const image = await uploadImage(suite, ws, alt);
      const pub = await publishSegments(ws, account.id, [`Conformance: a picture ${tag()}`], [image.id]);
      const done = await settle(suite, ws, pub.id);
      expect(done.status).toBe("published");
      const posts = await driver.posts(account);
      expect(posts).toHaveLength(1);
      expect(posts[0].media).toHaveLength(1);
      expect(Buffer.from(posts[0].media[0].bytes).equals(Buffer.from(image.bytes)), "the platform received the image's bytes").toBe(true);
      expect(posts[0].media[0].altText).toBe(alt);
      expectRecorded(done, posts);
      return undefined;
    },
  },
  {
    name: "over the limit: 422 at creation",
    // A segment's body holds at most 50,000 characters in Herald's API (functions/publications/requests.ts), which
    // refuses a longer one first: a platform limit above that cannot be exceeded by one segment.
    notApplicable: (driver) =>
      driver.textLimit >= SEGMENT_BODY_MAX ? `the platform's ${driver.textLimit} is above Herald's own ${SEGMENT_BODY_MAX} per segment, checked first` : null,
    async run(driver, suite) {
      const { ws, account } = await connected(driver, suite);
      const res = await ws.client.POST("/publications", {
        body: {
          workspace_id: ws.workspaceId,
          source_text: "Too long",
          destinations: [{ social_account_id: account.id, segments: [{ body: "x".repeat(driver.textLimit + 1) }] }],
        },
      });
      const problem = expectProblem(res, 422, "validation-error");
      expect(problem.errors).toEqual([
        {
          location: "body.destinations[0].segments[0].body",
          message: `Longer than the ${driver.platform} limit (${driver.textLimit + 1} > ${driver.textLimit})`,
        },
      ]);
      // Nothing was created, so nothing can be sent.
      expect(expectData(await ws.client.GET("/publications", { params: { query: { workspace_id: ws.workspaceId } } }))).toEqual([]);
      expect(await driver.posts(account)).toEqual([]);
      return `limit ${driver.textLimit}`;
    },
  },
  {
    name: "401 → reconnect_account",
    async run(driver, suite) {
      const { ws, account } = await connected(driver, suite);
      await driver.faults.unauthorized(account);
      const pub = await publishText(driver, suite, ws, account.id, [`Conformance: refused credentials ${tag()}`]);
      const done = await settle(suite, ws, pub.id);
      expect(done.status).toBe("failed");
      const r = only(done);
      expect(r).toMatchObject({ status: "failed", error_kind: "authentication", error_retryable: false });
      expect(r.delivery.recovery_action).toBe("reconnect_account");
      expect(r.delivery.current_attempt_number).toBe(1);
      expect(await driver.posts(account)).toEqual([]);
      // An OAuth account is marked for reconnection, so the account list shows what to do.
      if (isOAuthPlatform(driver.platform)) {
        const listed = expectData(await ws.client.GET("/accounts", { params: { query: { workspace_id: ws.workspaceId } } }));
        expect(listed.find((a) => a.id === account.id)?.status).toBe("reconnect_required");
      }
      return undefined;
    },
  },
  {
    name: "429 → retrying at the platform's reset",
    async run(driver, suite) {
      const { ws, account } = await connected(driver, suite);
      // Well past the first retry's own backoff (5 s ± 20 %), so the time Herald keeps can only be the platform's.
      const resetAt = new Date(Date.now() + 90_000);
      await driver.faults.rateLimitNext(account, resetAt);
      const pub = await publishText(driver, suite, ws, account.id, [`Conformance: rate-limited ${tag()}`]);
      const before = Date.now();
      const waiting = await pump(suite, ws, pub.id, (p) => p.renditions[0]?.status !== "queued" && p.renditions[0]?.status !== "publishing");
      const after = Date.now();
      const r = only(waiting);
      expect(r).toMatchObject({ status: "retrying", error_kind: "rate_limited", error_retryable: true, error_http_status: 429 });
      expect(r.error_retry_at).toEqual(expect.any(String));
      const retryAt = Date.parse(r.error_retry_at!);
      let note: string;
      const window = driver.rateLimitWindow;
      if (window) {
        // No reset time to keep: the documented window after the refusal, which came between `before` and `after`.
        const ms = window.seconds * 1000;
        expect(retryAt, `error_retry_at ${r.error_retry_at}: ${window.seconds} s after the refusal`).toBeGreaterThanOrEqual(before + ms - 2000);
        expect(retryAt, `error_retry_at ${r.error_retry_at}: ${window.seconds} s after the refusal`).toBeLessThanOrEqual(after + ms + 2000);
        note = `no reset given; retry after the documented window (${window.documented})`;
      } else {
        const off = retryAt - resetAt.getTime();
        expect(Math.abs(off), `error_retry_at ${r.error_retry_at} against the platform's reset ${resetAt.toISOString()}`).toBeLessThanOrEqual(2000);
        note = `retry at reset ${off >= 0 ? "+" : ""}${(off / 1000).toFixed(1)} s`;
      }
      expect(await driver.posts(account)).toEqual([]);
      // When the time comes, the post goes out once.
      const done = await settle(suite, ws, pub.id);
      expect(done.status).toBe("published");
      expect(await driver.posts(account)).toHaveLength(1);
      return note;
    },
  },
  {
    name: "timeout after the platform accepted",
    async run(driver, suite) {
      const { ws, account } = await connected(driver, suite);
      const started = await publishText(driver, suite, ws, account.id, [`Conformance: lost answer ${tag()}`]);
      await driver.faults.hangAfterAcceptingNext(account);
      // Herald's provider timeout (15 s) fires after 5 % of it: the platform never answers, however long one waits.
      const realTimeout = AbortSignal.timeout.bind(AbortSignal);
      const scaled = vi.spyOn(AbortSignal, "timeout").mockImplementation((ms: number) => realTimeout(Math.max(1, Math.round(ms * 0.05))));
      let done: Publication;
      try {
        done = await settle(suite, ws, started.id, MAX_ATTEMPTS + 2);
      } finally {
        scaled.mockRestore();
      }
      const posts = await driver.posts(account);
      expect(posts, "never a second post").toHaveLength(1);
      const unanswered = driver.faults.unanswered?.(account);
      if (unanswered !== undefined) expect(unanswered, "the platform took a post and never answered").toBeGreaterThanOrEqual(1);
      const confirmed = unanswered === undefined ? "; fault not confirmed" : "";
      const r = only(done);
      if (driver.timeoutOutcome === "verify_on_platform") {
        expect(r).toMatchObject({ status: "failed", error_code: "outcome-unknown" });
        expect(r.delivery.recovery_action).toBe("verify_on_platform");
        // The attempt after the lost answer learns the platform cannot be asked, and the delivery ends there.
        expect(r.delivery.current_attempt_number).toBe(2);
        return `cannot be asked: failed outcome-unknown, verify_on_platform at the 2nd attempt${confirmed}`;
      }
      expectRecorded(done, posts);
      expect(r.delivery.current_attempt_number).toBeGreaterThanOrEqual(1);
      const n = r.delivery.current_attempt_number ?? 0;
      const attempts = `${n} attempt${n === 1 ? "" : "s"}`;
      return driver.timeoutOutcome === "reconciled"
        ? `reconciled, ${attempts}${confirmed}`
        : `re-sent with the same id, dropped as a duplicate, ${attempts}${confirmed}`;
    },
  },
  {
    name: "token refresh under concurrency",
    notApplicable: (driver) => (driver.tokenRefresh.supported ? null : driver.tokenRefresh.reason),
    async run(driver, suite) {
      const refresh = driver.tokenRefresh;
      if (!refresh.supported) return undefined;
      const { ws, account } = await connected(driver, suite);
      await refresh.expireAccessToken(ws, account);
      const before = await refresh.refreshCount(account);
      const a = await publishText(driver, suite, ws, account.id, [`Conformance: refresh A ${tag()}`]);
      const b = await publishText(driver, suite, ws, account.id, [`Conformance: refresh B ${tag()}`]);
      const [doneA, doneB] = await Promise.all([settle(suite, ws, a.id), settle(suite, ws, b.id)]);
      expect([doneA.status, doneB.status]).toEqual(["published", "published"]);
      expect((await refresh.refreshCount(account)) - before, "refreshed once for two deliveries").toBe(1);
      expect(await driver.posts(account)).toHaveLength(2);
      expectNoSecrets(account, [doneA, doneB, await readPublication(ws, a.id)]);
      return undefined;
    },
  },
];
