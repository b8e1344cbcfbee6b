import crypto from "node:crypto";
import { hash, verify } from "@node-rs/argon2";

/** Passwords are stored as argon2id hashes. */
export const hashPassword = (password: string) => hash(password);

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

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
