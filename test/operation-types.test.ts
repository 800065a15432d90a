import { describe, expectTypeOf, it } from "vitest";
import type { route as createPublication } from "../functions/publications/create";
import type { route as getPublication } from "../functions/publications/get";
import type { RequestBody, ResponseBody } from "../lib/http/operation";
import type { components } from "./helpers/api-types";

/**
 * Every route file exports its `route`; lib/http/operation.ts derives the route's request and response types from
 * it, and they agree with the types generated from the OpenAPI document (checked by the compiler: `npm test` runs tsc).
 */
describe("request and response types from a route", () => {
  it("POST /publications: the body a caller writes and the publication it gets back", () => {
    expectTypeOf<RequestBody<typeof createPublication>["workspace_id"]>().toEqualTypeOf<string>();
    expectTypeOf<RequestBody<typeof createPublication>["source_text"]>().toEqualTypeOf<components["schemas"]["CreatePublicationRequest"]["source_text"]>();
    expectTypeOf<ResponseBody<typeof createPublication, 201>["id"]>().toEqualTypeOf<string>();
  });

  it("GET /publications/{id}: the answer is the document's PublicationResponse", () => {
    expectTypeOf<ResponseBody<typeof getPublication, 200>["status"]>().toEqualTypeOf<components["schemas"]["PublicationResponse"]["status"]>();
    expectTypeOf<ResponseBody<typeof getPublication, 200>["renditions"][number]["id"]>().toEqualTypeOf<string>();
  });
});
