import type { z } from "@hono/zod-openapi";

/** A required JSON request body. */
export const jsonBody = <S extends z.ZodType>(schema: S, description?: string) => ({
  content: { "application/json": { schema } },
  required: true as const,
  ...(description ? { description } : {}),
});

/** A JSON success response entry. */
export const jsonResponse = <S extends z.ZodType>(schema: S, description: string) => ({
  content: { "application/json": { schema } },
  description,
});
