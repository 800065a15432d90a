import type { publicationBuilds } from "../../db/schema";

/** A build as stored. Who may read or change one is declared on its routes (lib/http/access.ts, resource kind "build"). */
export type BuildRow = typeof publicationBuilds.$inferSelect;
