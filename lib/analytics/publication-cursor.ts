import { decodeCursor, encodeCursor } from "../cursor";
import { DomainError } from "../errors";
import type { SourceFilter } from "./overview-queries";

/**
 * The overview's publication cursor (`publication_next_cursor`, given back as `publication_cursor`): the
 * snapshot time the listing started at and the last publication's engagement and id, bound to the filter it
 * was issued for (source, days, account) and tagged so a content cursor is not taken for one.
 */
export interface PublicationCursor {
  asOf: Date;
  engagement: number;
  id: string;
}

interface Binding {
  source: SourceFilter;
  days: number;
  accountId: string | null;
}

const TAG = "publications";

export const encodePublicationCursor = (b: Binding, c: PublicationCursor) =>
  encodeCursor([TAG, b.source, b.days, b.accountId ?? "", c.asOf.toISOString(), String(c.engagement), c.id]);

const invalid = (detail: string, message: string) =>
  new DomainError("validation-error", detail, { errors: [{ location: "query.publication_cursor", message }] });

export function decodePublicationCursor(cursor: string, b: Binding): PublicationCursor {
  let parts: (string | number)[];
  try {
    parts = decodeCursor(cursor, ["string", "string", "number", "string", "date", "string", "string"]);
  } catch {
    throw invalid("The publication cursor is not one this API issued; start again without it.", "Invalid cursor");
  }
  const [tag, source, days, accountId, asOf, engagementText, id] = parts;
  // Engagement sums exceed int4, so they travel as decimal text.
  const engagement = /^\d{1,16}$/.test(engagementText as string) ? Number(engagementText) : Number.NaN;
  if (tag !== TAG || !Number.isSafeInteger(engagement))
    throw invalid("The publication cursor is not one this API issued; start again without it.", "Invalid cursor");
  if (source !== b.source || days !== b.days || accountId !== (b.accountId ?? ""))
    throw invalid(
      "This publication cursor belongs to a listing with another source, days or account_id; start again without it.",
      "Cursor issued for a different filter",
    );
  return { asOf: new Date(asOf as string), engagement, id: id as string };
}
