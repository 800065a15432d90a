import { createHeraldClient, type HeraldClient } from "../../client";
import gateway from "../../functions/all-groups";
import { env } from "./harness";

/**
 * The tests' typed client: the typed client of client/ (openapi-fetch over the types generated from the OpenAPI
 * document), calling the gateway in-process exactly as `api()` does. Paths, parameters, bodies and answers are
 * checked by the compiler against the document.
 */
export function client(token?: string): HeraldClient {
  return createHeraldClient({
    baseUrl: "http://herald.test",
    token,
    fetch: (request) => Promise.resolve(gateway.request(request, undefined, env)),
  });
}
