import { fromBase64Url, toBase64Url } from "./crypto";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Secrets at rest (provider credentials, secret instance settings): AES-256-GCM under a key derived
 * from INSTANCE_SECRET_KEY, with a fresh 96-bit nonce per value. Stored as `v1.<nonce>.<ciphertext>`.
 */
function keyFrom(instanceSecret: string): Promise<CryptoKey> {
  if (!instanceSecret || instanceSecret.length < 16) throw new Error("INSTANCE_SECRET_KEY is missing or too short");
  // Derived once per isolate (a delivery decrypts its account's credentials every time): the key is not
  // extractable, and it holds no request's I/O.
  if (derived?.secret !== instanceSecret) derived = { secret: instanceSecret, key: deriveKey(instanceSecret) };
  return derived.key;
}

let derived: { secret: string; key: Promise<CryptoKey> } | undefined;

async function deriveKey(instanceSecret: string): Promise<CryptoKey> {
  const material = await crypto.subtle.digest("SHA-256", encoder.encode(`herald-secrets-v1:${instanceSecret}`));
  return crypto.subtle.importKey("raw", material, "AES-GCM", false, ["encrypt", "decrypt"]);
}

export async function encryptSecret(instanceSecret: string, plaintext: string): Promise<string> {
  const nonce = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt({ name: "AES-GCM", iv: nonce }, await keyFrom(instanceSecret), encoder.encode(plaintext));
  return `v1.${toBase64Url(nonce)}.${toBase64Url(new Uint8Array(sealed))}`;
}

export async function decryptSecret(instanceSecret: string, stored: string): Promise<string> {
  const [version, nonce, sealed] = stored.split(".");
  if (version !== "v1" || !nonce || !sealed) throw new Error("unrecognised secret format");
  const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: fromBase64Url(nonce) }, await keyFrom(instanceSecret), fromBase64Url(sealed));
  return decoder.decode(plain);
}

export const encryptJson = (instanceSecret: string, value: unknown) => encryptSecret(instanceSecret, JSON.stringify(value));
export const decryptJson = async <T>(instanceSecret: string, stored: string): Promise<T> => JSON.parse(await decryptSecret(instanceSecret, stored)) as T;
