import crypto from "node:crypto";

/**
 * A software WebAuthn authenticator on node:crypto, for tests without a browser: P-256 keys, `none`
 * attestation, discoverable credentials, a signature counter. It answers creation and request options
 * as a browser plus platform authenticator would (RegistrationResponseJSON / AuthenticationResponseJSON),
 * and lets a test lie about the origin, the RP ID or the counter.
 */

type CborValue = number | string | Uint8Array | CborValue[] | Map<number | string, CborValue>;

function head(major: number, n: number): Buffer {
  if (n < 24) return Buffer.from([(major << 5) | n]);
  if (n < 0x100) return Buffer.from([(major << 5) | 24, n]);
  if (n < 0x10000) return Buffer.from([(major << 5) | 25, n >> 8, n & 0xff]);
  const b = Buffer.alloc(5);
  b[0] = (major << 5) | 26;
  b.writeUInt32BE(n, 1);
  return b;
}

/** The CBOR subset WebAuthn needs (RFC 8949): integers, byte and text strings, arrays, maps. */
export function cbor(value: CborValue): Buffer {
  if (typeof value === "number") return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === "string") {
    const bytes = Buffer.from(value, "utf8");
    return Buffer.concat([head(3, bytes.length), bytes]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value]);
  if (Array.isArray(value)) return Buffer.concat([head(4, value.length), ...value.map(cbor)]);
  return Buffer.concat([head(5, value.size), ...[...value].flatMap(([k, v]) => [cbor(k), cbor(v)])]);
}

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");
const sha256 = (data: Uint8Array | string) => crypto.createHash("sha256").update(data).digest();

interface Credential {
  id: Buffer;
  key: crypto.KeyObject;
  rpId: string;
  userHandle: string;
  counter: number;
}

export interface CeremonyOverrides {
  origin?: string;
  rpId?: string;
  /** Signature counter to report (default: one more than the last). */
  counter?: number;
  /** Another challenge than the options carry. */
  challenge?: string;
}

export class SoftAuthenticator {
  readonly credentials: Credential[] = [];

  constructor(private readonly origin: string) {}

  /** navigator.credentials.create({ publicKey: options }) → RegistrationResponseJSON. */
  register(options: any, overrides: CeremonyOverrides = {}) {
    const rpId = overrides.rpId ?? options.rp.id;
    const { privateKey, publicKey } = crypto.generateKeyPairSync("ec", { namedCurve: "P-256" });
    const jwk = publicKey.export({ format: "jwk" });
    const id = crypto.randomBytes(32);
    const credential: Credential = { id, key: privateKey, rpId, userHandle: options.user.id, counter: overrides.counter ?? 0 };
    const coseKey = cbor(
      new Map<number, CborValue>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(jwk.x!, "base64url")],
        [-3, Buffer.from(jwk.y!, "base64url")],
      ]),
    );
    const count = Buffer.alloc(4);
    count.writeUInt32BE(credential.counter);
    const idLength = Buffer.from([id.length >> 8, id.length & 0xff]);
    // Flags: user present (0x01), user verified (0x04), attested credential data (0x40).
    const authData = Buffer.concat([sha256(rpId), Buffer.from([0x45]), count, Buffer.alloc(16), idLength, id, coseKey]);
    const clientData = JSON.stringify({
      type: "webauthn.create",
      challenge: overrides.challenge ?? options.challenge,
      origin: overrides.origin ?? this.origin,
      crossOrigin: false,
    });
    this.credentials.push(credential);
    return {
      id: b64url(id),
      rawId: b64url(id),
      type: "public-key" as const,
      response: {
        clientDataJSON: b64url(Buffer.from(clientData)),
        attestationObject: b64url(
          cbor(
            new Map<string, CborValue>([
              ["fmt", "none"],
              ["attStmt", new Map()],
              ["authData", authData],
            ]),
          ),
        ),
        transports: ["internal"],
      },
      authenticatorAttachment: "platform",
      clientExtensionResults: {},
    };
  }

  /** navigator.credentials.get({ publicKey: options }) with a discoverable credential → AuthenticationResponseJSON. */
  assert(options: any, overrides: CeremonyOverrides & { credential?: number } = {}) {
    const credential = this.credentials[overrides.credential ?? this.credentials.length - 1];
    if (!credential) throw new Error("the soft authenticator holds no credential");
    credential.counter = overrides.counter ?? credential.counter + 1;
    const rpId = overrides.rpId ?? options.rpId ?? credential.rpId;
    const count = Buffer.alloc(4);
    count.writeUInt32BE(credential.counter);
    const authData = Buffer.concat([sha256(rpId), Buffer.from([0x05]), count]);
    const clientData = Buffer.from(
      JSON.stringify({
        type: "webauthn.get",
        challenge: overrides.challenge ?? options.challenge,
        origin: overrides.origin ?? this.origin,
        crossOrigin: false,
      }),
    );
    const signature = crypto.sign("sha256", Buffer.concat([authData, sha256(clientData)]), credential.key);
    return {
      id: b64url(credential.id),
      rawId: b64url(credential.id),
      type: "public-key" as const,
      response: {
        clientDataJSON: b64url(clientData),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        userHandle: credential.userHandle,
      },
      authenticatorAttachment: "platform",
      clientExtensionResults: {},
    };
  }
}
