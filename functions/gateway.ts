// Every group in one Worker, for now; the next commit makes this the router in front of the group Workers.
export { default } from "./all-groups";
