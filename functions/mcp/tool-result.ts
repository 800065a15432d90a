import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

function parse(text: string): unknown {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return text;
  }
}

/** The `cursor` of a `Link: <…>; rel="next"` header, for the next page of a list. */
function nextCursor(link: string | null): string | undefined {
  const next = link?.split(",").find((part) => /rel="?next"?/.test(part));
  const url = next && /<([^>]+)>/.exec(next)?.[1];
  return url ? (new URL(url, "http://cursor.invalid").searchParams.get("cursor") ?? undefined) : undefined;
}

/**
 * The operation's answer as a tool result: a success as its JSON body (and the next page's cursor for a list); a
 * problem as a tool error (`isError`) carrying the problem's slug as `type`, its `status` and `detail` (and any
 * field errors or extra members), so a caller sees the same answer the HTTP operation gives.
 */
export async function toolResult(res: Response): Promise<CallToolResult> {
  const text = await res.text();
  const body = parse(text);
  if (res.ok) {
    const cursor = nextCursor(res.headers.get("link"));
    return {
      content: [
        { type: "text", text: text || JSON.stringify({ status: res.status }) },
        ...(cursor ? [{ type: "text" as const, text: JSON.stringify({ next_cursor: cursor }) }] : []),
      ],
      ...(isObject(body) ? { structuredContent: body } : {}),
    };
  }
  const { $schema: _schema, type, ...rest } = isObject(body) ? body : { detail: text };
  const slug = typeof type === "string" ? type.slice(type.lastIndexOf("/") + 1) : "error";
  const problem = { type: slug, ...rest, status: res.status };
  return { isError: true, content: [{ type: "text", text: JSON.stringify(problem) }], structuredContent: problem };
}
