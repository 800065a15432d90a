import { describe, expect, it } from "vitest";
import type { paths } from "./helpers/api-types";
import { daysAgo, seedItem } from "./helpers/analytics";
import { client } from "./helpers/client";
import { newAccount } from "./helpers/publishing";
import { newTeam } from "./helpers/team";
import { expectData, expectProblem } from "./helpers/typed";

/** GET /analytics pages publications by `publication_cursor`: every page bounded, every publication once, in order. */

type OverviewQuery = Omit<paths["/analytics"]["get"]["parameters"]["query"], "workspace_id">;
const overview = (token: string, ws: string, query: OverviewQuery = {}) =>
  client(token).GET("/analytics", { params: { query: { workspace_id: ws, ...query } } });

const PAGE = 4;

/** A workspace with `n` publications, the i-th with engagement i (its rendition's likes), and one item each. */
async function workspaceWith(n: number) {
  const team = await newTeam();
  const account = await newAccount(team.ws, team.owner.id, "mastodon", { username: "pages" });
  const made: { id: string; engagement: number }[] = [];
  for (let i = 0; i < n; i++) {
    const pub = expectData(
      await client(team.owner.token).POST("/publications", {
        body: { workspace_id: team.ws, title: `P${i}`, source_text: `Publication ${i}`, destinations: [{ social_account_id: account }] },
      }),
      201,
    );
    // Engagement repeats every 5 publications: ties are ordered by id, never skipped or repeated.
    const engagement = i % 5;
    await seedItem(team.ws, account, {
      externalId: `s${i}`,
      publishedAt: daysAgo(1 + i / 100),
      publicationId: pub.id,
      renditionId: pub.renditions[0].id,
      metrics: { likes: engagement },
    });
    made.push({ id: pub.id, engagement });
  }
  return { ...team, made };
}

async function walk(token: string, ws: string) {
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const o = expectData(await overview(token, ws, { publication_limit: PAGE, limit: 2, ...(cursor ? { publication_cursor: cursor } : {}) }));
    pages.push(o.publications.map((p) => p.publication_id));
    for (const p of o.publications) expect(p.renditions.every((r) => r.publication_id === p.publication_id)).toBe(true);
    expect(o.content.length).toBeLessThanOrEqual(2);
    cursor = o.publication_next_cursor ?? undefined;
  } while (cursor && pages.length < 100);
  return pages;
}

describe("GET /analytics publication pages", () => {
  it("1× and 10× the publications: the same bounded page, every publication exactly once, most engagement first", async () => {
    for (const n of [3, 30]) {
      const { owner, ws, made } = await workspaceWith(n);
      const first = expectData(await overview(owner.token, ws, { publication_limit: PAGE }));
      expect(first.publication_total).toBe(n);
      expect(first.publications.length).toBe(Math.min(n, PAGE));
      expect(first.publication_next_cursor === null).toBe(n <= PAGE);

      const pages = await walk(owner.token, ws);
      expect(pages).toHaveLength(Math.ceil(n / PAGE));
      expect(pages.every((p) => p.length <= PAGE && p.length > 0)).toBe(true);
      const expected = [...made].sort((a, b) => b.engagement - a.engagement || (a.id < b.id ? 1 : -1)).map((p) => p.id);
      expect(pages.flat()).toEqual(expected);
    }
  });

  it("a publication cursor belongs to its filter and is not a content cursor", async () => {
    const { owner, ws } = await workspaceWith(PAGE + 1);
    const first = expectData(await overview(owner.token, ws, { publication_limit: PAGE, limit: 1 }));
    const cursor = first.publication_next_cursor ?? "";
    expect(cursor).not.toBe("");
    for (const other of [{ days: 7 as const }, { source: "external" as const }]) {
      const res = await overview(owner.token, ws, { publication_limit: PAGE, publication_cursor: cursor, ...other });
      expect(expectProblem(res, 422, "validation-error").errors?.[0].location).toBe("query.publication_cursor");
    }
    const asContent = await overview(owner.token, ws, { cursor: first.content_next_cursor ?? "", publication_cursor: first.content_next_cursor ?? "" });
    expect(expectProblem(asContent, 422, "validation-error").errors?.[0].location).toBe("query.publication_cursor");
    expectProblem(await overview(owner.token, ws, { publication_limit: 51 }), 422, "validation-error");
  });
});
