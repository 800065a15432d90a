import { createWorkerApp } from "../lib/http/app";
import { GROUPS } from "./groups";

/** Every group in one Worker: what `npm start` serves and what a single-Worker deploy runs. */
const app = createWorkerApp(Object.values(GROUPS), {
  title: "Herald API",
  description: "Multi-workspace social publishing. Errors are RFC 9457 problem+json; every response names its JSON Schema in `$schema`.",
});

export default app;
