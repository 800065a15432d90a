export { expectProblem } from "./harness";
import { newUser, newWorkspace } from "./harness";

export type User = Awaited<ReturnType<typeof newUser>>;

/** A workspace with one member of each role below owner, and a user from outside it. */
export async function newTeam() {
  const [owner, editor, viewer, outsider] = await Promise.all([newUser(), newUser(), newUser(), newUser()]);
  const ws = await newWorkspace(owner, [
    { id: editor.id, role: "editor" },
    { id: viewer.id, role: "viewer" },
  ]);
  return { owner, editor, viewer, outsider, ws };
}
