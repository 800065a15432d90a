import { createGroupApp } from "../../lib/http/app";
import { register } from "../../lib/http/operation";
import * as addMember from "./add-member";
import * as create from "./create";
import * as invitationsAccept from "./invitations-accept";
import * as invitationsCreate from "./invitations-create";
import * as invitationsList from "./invitations-list";
import * as invitationsRevoke from "./invitations-revoke";
import * as list from "./list";
import * as membersList from "./members-list";
import * as membersRemove from "./members-remove";
import * as membersUpdate from "./members-update";
import * as update from "./update";

/** Workspaces, their members and invitations. */
const app = createGroupApp();
register(app, create);
register(app, list);
register(app, update);
register(app, addMember);
register(app, membersList);
register(app, membersUpdate);
register(app, membersRemove);
register(app, invitationsCreate);
register(app, invitationsList);
register(app, invitationsRevoke);
register(app, invitationsAccept);

export default app;
