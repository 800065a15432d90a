import { z } from "@hono/zod-openapi";
import { responseObject } from "../../lib/http/schema-ref";
import { RoleEnum, WorkspaceName } from "../workspaces/schemas";

export const FirstWorkspaceRequest = z
  .object({ workspace_name: WorkspaceName, continuation_token: z.string().min(1).max(4000) })
  .openapi("FirstWorkspaceRequest");

export const CheckoutAttempt = z
  .object({
    id: z.string(),
    status: z.enum(["open", "completed", "expired"]),
    plan_id: z.string(),
    interval: z.enum(["month", "year"]),
    checkout_url: z.string().nullable().openapi({ description: "The hosted checkout page while payment is needed, else null" }),
    expires_at: z.string().datetime(),
  })
  .openapi("CheckoutAttempt");

export const FirstWorkspaceResponse = responseObject("FirstWorkspaceResponse", {
  workspace: z
    .object({
      id: z.string(),
      name: z.string(),
      organization_id: z.string(),
      role: RoleEnum,
      revision: z.number().int(),
      created_at: z.string().datetime(),
      updated_at: z.string().datetime(),
    })
    .openapi("FirstWorkspace"),
  checkout: CheckoutAttempt,
});
