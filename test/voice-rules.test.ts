import { describe, expect, it } from "vitest";
import { assignmentClashes, assignmentIssues, deletionLeavesNoDefault, isDefaultOnCreate } from "../lib/voice/rules";

describe("voice profile rules", () => {
  it("assignments: duplicates and accounts outside the workspace are named by index", () => {
    const inWorkspace = new Set(["acc_a", "acc_b"]);
    expect(assignmentIssues(["acc_a", "acc_b"], inWorkspace)).toEqual([]);
    expect(assignmentIssues(["acc_a", "acc_x", "acc_a"], inWorkspace)).toEqual([
      { index: 1, accountId: "acc_x", message: expect.stringContaining("No social account") },
      { index: 2, accountId: "acc_a", message: "Listed more than once" },
    ]);
    expect(assignmentIssues([], inWorkspace)).toEqual([]);
  });

  it("assignments: an account held by another profile clashes, one held by the same profile does not", () => {
    const holders = new Map([
      ["acc_a", "vop_1"],
      ["acc_b", "vop_2"],
    ]);
    expect(assignmentClashes(["acc_a", "acc_b", "acc_c"], holders, "vop_1")).toEqual([{ index: 1, accountId: "acc_b", profileId: "vop_2" }]);
    expect(assignmentClashes(["acc_a"], holders, null)).toEqual([{ index: 0, accountId: "acc_a", profileId: "vop_1" }]);
  });

  it("default policy: the first profile becomes default; the default goes last", () => {
    expect(isDefaultOnCreate(false)).toBe(true);
    expect(isDefaultOnCreate(true)).toBe(false);
    expect(deletionLeavesNoDefault(true, 2)).toBe(true);
    expect(deletionLeavesNoDefault(true, 0)).toBe(false);
    expect(deletionLeavesNoDefault(false, 3)).toBe(false);
  });
});
