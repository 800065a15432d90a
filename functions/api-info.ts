import type { WorkerAppOptions } from "../lib/http/app";
import { API_TAGS } from "./api-tags";

/** The whole API's title and description: the gateway's merged document and the all-in-one app's. */
export const API_INFO: WorkerAppOptions = {
  title: "Herald API",
  description: "Multi-workspace social publishing. Errors are RFC 9457 problem+json; every response names its JSON Schema in `$schema`.",
  license: { name: "Apache License 2.0", identifier: "Apache-2.0" },
  contactName: "The operators of this Herald instance",
  tags: API_TAGS,
};
