/**
 * The fastest of `runs` runs of each of two functions (a 1× and a 10× input), after a warm-up, timed in turns:
 * both sizes see the same machine, and a pause (GC, other test files on the CPUs) only ever adds time, so the
 * fastest run is the function's own cost. Timed one size after the other with medians, a busy CI machine once
 * made linear work look like 26×.
 */
export function fastestOfEach(small: () => unknown, large: () => unknown, runs = 7): { once: number; tenfold: number } {
  small();
  large();
  let once = Infinity;
  let tenfold = Infinity;
  for (let i = 0; i < runs; i++) {
    once = Math.min(once, timed(small));
    tenfold = Math.min(tenfold, timed(large));
  }
  return { once, tenfold };
}

function timed(fn: () => unknown): number {
  const start = performance.now();
  fn();
  return performance.now() - start;
}
