import { createGroupApp } from "../../lib/http/app";
import { register } from "../../lib/http/operation";
import * as create from "./create";
import * as remove from "./delete";
import * as list from "./list";
import * as listDeliveries from "./list-deliveries";
import * as redeliver from "./redeliver";
import * as update from "./update";

/** Outbound events (CONTRACT §9 Integrations): endpoints, their delivery logs, redelivery. */
const app = createGroupApp();
register(app, create);
register(app, list);
register(app, update);
register(app, remove);
register(app, listDeliveries);
register(app, redeliver);

export default app;
