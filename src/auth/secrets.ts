import crypto from "node:crypto";

// The secrets of authentication: bearer tokens, session ids, client secrets. An account's password belongs to
// the account (src/users/passwords.ts): authentication imports accounts, never the reverse.

/** Random bearer secrets (tokens, session ids, client secrets): 256 bits, URL-safe. */
export const randomSecret = () => crypto.randomBytes(32).toString("base64url");

/** Tokens are high-entropy, so a fast SHA-256 is enough to store them without keeping the secret. */
export const hashSecret = (secret: string) => crypto.createHash("sha256").update(secret).digest("hex");

/** Compares two strings in constant time. */
export function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && crypto.timingSafeEqual(left, right);
}
