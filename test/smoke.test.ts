import { describe, expect, it } from "vitest";
import { api, newUser } from "./helpers/harness";
import { client } from "./helpers/client";
import { expectData } from "./helpers/typed";

describe("smoke", () => {
  it("answers /healthz and /auth/me", async () => {
    // /healthz is outside the OpenAPI document (not an API operation): called raw.
    const health = await api<unknown>("GET", "/healthz");
    expect(health.status, health.text).toBe(200);
    const user = await newUser();
    const me = expectData(await client(user.token).GET("/auth/me"));
    expect(me.email).toBe(user.email);
    expect(me.$schema).toBe("http://localhost:8787/api/v1/schemas/UserProfile.json");
  });
});
