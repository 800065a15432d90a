/**
 * Imported first by the consumer child process: its Worker clock runs FAULT_CLOCK_OFFSET_MS ahead of (or, when
 * negative, behind) the database's, for `Date.now()` and `new Date()` alike. With FAULT_TIMEOUT_SCALE < 1,
 * `AbortSignal.timeout(ms)` (Herald's provider timeout, lib/providers/http.ts) fires after `ms × scale` of real
 * time: the fault matrix simulates a provider that never answers without waiting the whole 15 s.
 */
const offset = Number(process.env.FAULT_CLOCK_OFFSET_MS ?? 0);
if (offset) {
  const RealDate = Date;
  const realNow = RealDate.now.bind(RealDate);
  class SkewedDate extends RealDate {
    constructor(...args: unknown[]) {
      if (args.length === 0) super(realNow() + offset);
      else super(...(args as [string | number | Date]));
    }
    static now() {
      return realNow() + offset;
    }
  }
  globalThis.Date = SkewedDate as DateConstructor;
}
const scale = Number(process.env.FAULT_TIMEOUT_SCALE ?? 1);
if (scale > 0 && scale < 1) {
  const realTimeout = AbortSignal.timeout.bind(AbortSignal);
  AbortSignal.timeout = (ms: number) => realTimeout(Math.max(1, Math.round(ms * scale)));
}
export {};
