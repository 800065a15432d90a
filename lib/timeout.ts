/** `promise`, or a rejection with Error("timeout") after `ms`, whichever comes first (the promise is not cancelled). */
export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error("timeout")), ms))]);
}
