// The API's generated types live with the typed client (client/openapi.ts, `npx tsx local/api-types.ts`); the tests use the same.
export type * from "../../client/openapi";
