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
