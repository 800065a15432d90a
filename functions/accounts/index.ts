import { createGroupApp } from "../../lib/http/app";
import { register } from "../../lib/http/operation";
import * as connectCallback from "./connect-callback";
import * as connectStart from "./connect-start";
import * as create from "./create";
import * as remove from "./delete";
import * as list from "./list";
import * as listMessages from "./list-messages";
import * as listProviders from "./list-providers";
import * as refreshMessages from "./refresh-messages";
import * as refreshMetadata from "./refresh-metadata";

/** Connected social accounts, their providers, and message collection. */
const app = createGroupApp();
// The fixed path first, so `/accounts/providers` is never read as an account id.
register(app, listProviders);
register(app, connectStart);
register(app, connectCallback);
register(app, create);
register(app, list);
register(app, remove);
register(app, refreshMetadata);
register(app, refreshMessages);
register(app, listMessages);

export default app;
