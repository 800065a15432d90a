import { describe, expect, it } from "vitest";
import { api, newUser } from "./helpers/harness";

describe("smoke", () => {
  it("answers /healthz and /auth/me", async () => {
    const health = await api("GET", "/healthz");
    expect(health.status, health.text).toBe(200);
    const user = await newUser();
    const me = await api("GET", "/auth/me", { token: user.token });
    expect(me.status, me.text).toBe(200);
    expect(me.body.email).toBe(user.email);
    expect(me.body.$schema).toBe("http://localhost:8787/api/v1/schemas/UserProfile.json");
  });
});
