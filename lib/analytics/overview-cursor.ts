import { DomainError } from "../errors";
import { decodeCursor, encodeCursor } from "../cursor";
import type { SortKey, SourceFilter } from "./overview-queries";

/**
 * The overview's content cursor: the snapshot time the listing started at and the last row's position,
 * bound to the filter it was issued for (sort, source, days, account), so it cannot page another listing.
 */
export interface ContentCursor {
  asOf: Date;
  value: number;
  id: string;
}

interface Binding {
  sort: SortKey;
  source: SourceFilter;
  days: number;
  accountId: string | null;
}

export const encodeContentCursor = (b: Binding, c: ContentCursor) =>
  encodeCursor([b.sort, b.source, b.days, b.accountId ?? "", c.asOf.toISOString(), String(c.value), c.id]);

export function decodeContentCursor(cursor: string, b: Binding): ContentCursor {
  const [sort, source, days, accountId, asOf, valueText, id] = decodeCursor(cursor, ["string", "string", "number", "string", "date", "string", "string"]);
  // Sort values (sums of counts, epoch milliseconds) exceed int4, so they travel as decimal text.
  const value = /^-?\d{1,16}$/.test(valueText as string) ? Number(valueText) : NaN;
  if (!Number.isSafeInteger(value)) {
    throw new DomainError("validation-error", "The cursor is not one this API issued; start again without it.", {
      errors: [{ location: "query.cursor", message: "Invalid cursor" }],
    });
  }
  if (sort !== b.sort || source !== b.source || days !== b.days || accountId !== (b.accountId ?? "")) {
    throw new DomainError("validation-error", "This cursor belongs to a listing with another sort, source, days or account_id; start again without it.", {
      errors: [{ location: "query.cursor", message: "Cursor issued for a different filter" }],
    });
  }
  return { asOf: new Date(asOf as string), value, id: id as string };
}
