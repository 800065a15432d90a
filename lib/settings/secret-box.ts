import { sha256Hex } from "../crypto";
import { decryptSecret, encryptSecret } from "../secrets";

/**
 * Secret settings at rest: AES-GCM (lib/secrets.ts) under INSTANCE_SECRET_KEY, stored with the id of the key
 * that sealed them. To rotate, set the new INSTANCE_SECRET_KEY and the old one as INSTANCE_SECRET_KEY_PREVIOUS:
 * values sealed by either still open, and each one saved again is sealed by the new key.
 */
export interface KeyRing {
  INSTANCE_SECRET_KEY?: string;
  INSTANCE_SECRET_KEY_PREVIOUS?: string;
}

/** A short public fingerprint of a key (never the key). */
export const keyIdOf = async (key: string) => `k1_${(await sha256Hex(`herald-key-id:${key}`)).slice(0, 16)}`;

export async function seal(ring: KeyRing, plaintext: string): Promise<{ ciphertext: string; keyId: string }> {
  const key = ring.INSTANCE_SECRET_KEY;
  if (!key) throw new Error("INSTANCE_SECRET_KEY is not set");
  return { ciphertext: await encryptSecret(key, plaintext), keyId: await keyIdOf(key) };
}

/** The plaintext, or null when no key of the ring has that id (the key was rotated away) or it fails to open. */
export async function open(ring: KeyRing, sealed: { ciphertext: string; keyId: string | null }): Promise<string | null> {
  for (const key of [ring.INSTANCE_SECRET_KEY, ring.INSTANCE_SECRET_KEY_PREVIOUS]) {
    if (!key || (sealed.keyId && sealed.keyId !== (await keyIdOf(key)))) continue;
    try {
      return await decryptSecret(key, sealed.ciphertext);
    } catch {
      return null;
    }
  }
  return null;
}
