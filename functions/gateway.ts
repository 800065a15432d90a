import { createRouterApp } from "../lib/http/router";
import { API_INFO } from "./api-info";
import { ROUTES } from "./routes";

/**
 * The API's front door (wrangler.toml's top level): forwards each request to the Worker of the group
 * that serves it (a GROUP_* service binding each) and carries none of the groups' code.
 */
export default createRouterApp(ROUTES, API_INFO);
