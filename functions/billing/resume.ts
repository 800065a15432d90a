import { signedIn } from "../../lib/http/access";
import { renewalOperation } from "./renewal-route";

const operation = renewalOperation(false);
export const route = operation.route;
export const handler = operation.handler;
// Any signed-in caller; the handler requires an owner of the organization named in the body (404/403).
export const access = signedIn();
