import { expect } from "vitest";
import {
  type AccountContext,
  type PostRef,
  ProviderError,
  type PublishProgress,
  type RenditionToPublish,
  type SegmentToPublish,
} from "../../lib/providers/types";

/** Test helpers for calling adapters directly: an account context and a progress that records. */

export function accountContext(over: Partial<AccountContext> & Pick<AccountContext, "platform">): AccountContext {
  return { id: "acc_test", username: null, instanceUrl: null, url: null, externalAccountId: null, credentials: {}, allowPrivateUrls: true, ...over };
}

export function recordingProgress(posted: Map<number, PostRef> = new Map()): PublishProgress & { calls: [number, PostRef][] } {
  const calls: [number, PostRef][] = [];
  return {
    posted,
    calls,
    async onPosted(position, ref) {
      calls.push([position, ref]);
      posted.set(position, ref);
    },
  };
}

let n = 0;
export function rendition(bodies: string[], over: Partial<RenditionToPublish> = {}, segment: Partial<SegmentToPublish> = {}): RenditionToPublish {
  n++;
  return {
    publicationId: `pub_test${n}`,
    renditionId: `rnd_test${n}`,
    title: "A title",
    deliveryKey: `dlv_${Date.now().toString(36)}_${n}_${Math.random().toString(36).slice(2)}`,
    segments: bodies.map((body, position) => ({ position, title: null, body, url: null, media: [], ...segment })),
    ...over,
  };
}

/** The ProviderError a call fails with; the test fails if the call succeeds or throws anything else. */
export async function providerFailure(p: Promise<unknown>): Promise<ProviderError> {
  const err: unknown = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  if (err instanceof ProviderError) return err;
  throw new Error(`expected a ProviderError, got ${String(err)}`);
}
