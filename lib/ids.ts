const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";

/** Random base36 text; 26 characters carry about 134 bits. */
export function randomText(length: number): string {
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  let out = "";
  for (const b of bytes) out += ALPHABET[b % 36];
  return out;
}

/** Opaque id with a type prefix, e.g. `usr_…`. The tiny modulo bias does not matter for ids. */
export function newId(prefix: string): string {
  return `${prefix}_${randomText(24)}`;
}
