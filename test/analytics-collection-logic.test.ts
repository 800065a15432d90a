import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { arrayOf, idOf, MAX_ID_LENGTH, objectOf, optionalCountOf, timeOf } from "../lib/providers/analytics/answer-shape";
import {
  ANALYTICS_BACKOFF_BASE_MS,
  ANALYTICS_BACKOFF_CAP_MS,
  analyticsBackoffMs,
  analyticsBackoffUntil,
  isBackingOff,
  RETRY_AFTER_CAP_MS,
} from "../lib/jobs/retry-policy";
import { decodePublicationCursor, encodePublicationCursor } from "../lib/analytics/publication-cursor";
import { hasNul, parseAnswerText } from "../lib/providers/answer";
import { ProviderError } from "../lib/providers/types";

/** The pure parts of collection under bad answers: backoff, the classification of an answer, the publication cursor. */

const codeOf = (run: () => unknown) => {
  try {
    run();
  } catch (err) {
    if (err instanceof ProviderError) return err.info.code;
    throw err;
  }
  return null;
};

describe("backoff (pure)", () => {
  it("doubles from 15 minutes and never exceeds a day", () => {
    expect([1, 2, 3, 4].map(analyticsBackoffMs)).toEqual([1, 2, 4, 8].map((n) => n * ANALYTICS_BACKOFF_BASE_MS));
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000 }), (n) => {
        const ms = analyticsBackoffMs(n);
        expect(ms).toBeGreaterThanOrEqual(ANALYTICS_BACKOFF_BASE_MS);
        expect(ms).toBeLessThanOrEqual(ANALYTICS_BACKOFF_CAP_MS);
        expect(analyticsBackoffMs(n + 1)).toBeGreaterThanOrEqual(ms);
      }),
    );
  });

  it("believes the platform's time when it is in the future, within a week; else its own backoff", () => {
    const now = new Date("2026-01-01T00:00:00Z");
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 50 }), fc.integer({ min: -86_400_000, max: 30 * 86_400_000 }), (failures, offset) => {
        const until = analyticsBackoffUntil(failures, now, new Date(now.getTime() + offset)).getTime() - now.getTime();
        if (offset > 0) expect(until).toBe(Math.min(offset, RETRY_AFTER_CAP_MS));
        else expect(until).toBe(analyticsBackoffMs(failures));
      }),
    );
    expect(analyticsBackoffUntil(3, now).getTime() - now.getTime()).toBe(4 * ANALYTICS_BACKOFF_BASE_MS);
    expect(isBackingOff(new Date(now.getTime() + 1), now)).toBe(true);
    expect(isBackingOff(now, now)).toBe(false);
    expect(isBackingOff(null, now)).toBe(false);
  });
});

describe("classifying an answer (pure)", () => {
  it("names what is wrong with the text of an answer", () => {
    expect(codeOf(() => parseAnswerText(null, "call"))).toBe("malformed_too_large");
    expect(codeOf(() => parseAnswerText("<html>", "call"))).toBe("malformed_not_json");
    expect(codeOf(() => parseAnswerText("", "call"))).toBe("malformed_not_json");
    expect(codeOf(() => parseAnswerText('{"a":["x\\u0000y"]}', "call"))).toBe("malformed_nul_character");
    expect(codeOf(() => parseAnswerText('{"k\\u0000":1}', "call"))).toBe("malformed_nul_character");
    expect(parseAnswerText('{"a":[1,"b"]}', "call")).toEqual({ a: [1, "b"] });
  });

  it("finds a NUL wherever it hides in any JSON, and only then", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const text = JSON.stringify(v);
        expect(hasNul(v)).toBe(text.includes("\\u0000"));
      }),
    );
  });

  it("checks ids, lists, objects, dates and counts, saying which field is wrong", () => {
    expect(idOf("123", "id")).toBe("123");
    expect(codeOf(() => idOf(undefined, "id"))).toBe("malformed_id");
    expect(codeOf(() => idOf("", "id"))).toBe("malformed_id");
    expect(codeOf(() => idOf(123, "id"))).toBe("malformed_id");
    expect(codeOf(() => idOf("x".repeat(MAX_ID_LENGTH + 1), "id"))).toBe("malformed_id");
    expect(codeOf(() => idOf("a\nb", "id"))).toBe("malformed_id");
    expect(codeOf(() => arrayOf({}, "list"))).toBe("malformed_type");
    expect(codeOf(() => objectOf([], "object"))).toBe("malformed_type");
    expect(codeOf(() => objectOf(null, "object"))).toBe("malformed_type");
    expect(codeOf(() => timeOf(17, "created_at"))).toBe("malformed_type");
    expect(timeOf("2026-01-01T00:00:00Z", "created_at").toISOString()).toBe("2026-01-01T00:00:00.000Z");
    expect(optionalCountOf(undefined, "n")).toBeUndefined();
    for (const bad of ["3", -1, 1.5, Number.MAX_SAFE_INTEGER + 2]) expect(codeOf(() => optionalCountOf(bad, "n"))).toBe("malformed_type");
    try {
      idOf(5, "GET /x: [3].id");
    } catch (err) {
      expect((err as Error).message).toBe("GET /x: [3].id is a number, not a string.");
    }
  });
});

describe("publication cursor (pure)", () => {
  const binding = { source: "all" as const, days: 30, accountId: null };
  it("round-trips, and refuses another filter's or a forged cursor naming query.publication_cursor", () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date("2000-01-01"), max: new Date("2100-01-01"), noInvalidDate: true }),
        fc.nat(),
        fc.string({ minLength: 1, maxLength: 40 }),
        (asOf, engagement, id) => {
          fc.pre(!id.includes("\u0000"));
          const c = encodePublicationCursor(binding, { asOf, engagement, id });
          expect(decodePublicationCursor(c, binding)).toEqual({ asOf, engagement, id });
        },
      ),
    );
    const c = encodePublicationCursor(binding, { asOf: new Date(), engagement: 5, id: "pub_1" });
    for (const [cursor, b] of [
      [c, { ...binding, days: 7 }],
      [c, { ...binding, source: "native" as const }],
      ["garbage", binding],
    ] as const) {
      try {
        decodePublicationCursor(cursor, b);
        expect.unreachable();
      } catch (err) {
        expect((err as { options: { errors: { location: string }[] } }).options.errors[0].location).toBe("query.publication_cursor");
      }
    }
  });
});
