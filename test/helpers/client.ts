import createClient, { type Client } from "openapi-fetch";
import gateway from "../../functions/all-groups";
import type { paths } from "./api-types";
import { env } from "./harness";

/**
 * The tests' typed client: openapi-fetch over the types generated from the OpenAPI document
 * (test/helpers/api-types.ts), calling the gateway in-process exactly as `api()` does. Paths, parameters,
 * bodies and answers are checked by the compiler against the document.
 */
export function client(token?: string): Client<paths> {
  return createClient<paths>({
    baseUrl: "http://herald.test",
    headers: token ? { authorization: `Bearer ${token}` } : {},
    fetch: (request) => Promise.resolve(gateway.request(request, undefined, env)),
  });
}
