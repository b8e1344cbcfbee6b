import { ZxcvbnFactory } from "@zxcvbn-ts/core";
import { createRequire } from "node:module";

// The dictionaries are unpacked when their modules load (a tenth of a second): loaded on the first check, not at start-up.
const require = createRequire(import.meta.url);
type Common = typeof import("@zxcvbn-ts/language-common");
type English = typeof import("@zxcvbn-ts/language-en");

/**
 * Passwords are judged by zxcvbn (the estimator Dropbox published, maintained as zxcvbn-ts): it knows
 * common passwords, words, names, keyboard walks, dates, repeats and l33t spellings, so `12345678`,
 * `password1` or `qwertyuiop` fail however long they are. Score 3 of 4 means "safely unguessable:
 * moderate protection from an offline slow-hash attack" (our hashes are argon2id).
 */
export const PASSWORD_POLICY = {
  minLength: 8,
  maxLength: 1024,
  minScore: 3,
  /**
   * zxcvbn's work grows steeply with length (a 64-character repeat took 2 s): only this prefix is judged,
   * and l33t spellings are tried with at most 10 substitutions, which keeps the worst case under ~100 ms.
   */
  estimatedPrefix: 48,
  l33tMaxSubstitutions: 10,
} as const;

let estimator: ZxcvbnFactory | undefined;
/** Built on first use: the dictionaries take a few hundred milliseconds to rank. */
const zxcvbn = () => {
  if (estimator) return estimator;
  const common = require("@zxcvbn-ts/language-common") as Common;
  const english = require("@zxcvbn-ts/language-en") as English;
  return (estimator = new ZxcvbnFactory({
    dictionary: { ...common.dictionary, ...english.dictionary },
    graphs: common.adjacencyGraphs,
    translations: english.translations,
    maxLength: PASSWORD_POLICY.estimatedPrefix,
    l33tMaxSubstitutions: PASSWORD_POLICY.l33tMaxSubstitutions,
  }));
};

/**
 * Why `password` is not acceptable for the account, or null when it is. The account's own username,
 * e-mail address and name count as known words, and the password may not be either of the first two.
 */
export function passwordWeakness(password: string, account: { username?: unknown; email?: unknown; name?: unknown }): string | null {
  if (password.length < PASSWORD_POLICY.minLength) return `must be at least ${PASSWORD_POLICY.minLength} characters`;
  if (password.length > PASSWORD_POLICY.maxLength) return `must be at most ${PASSWORD_POLICY.maxLength} characters`;
  const personal = [account.username, account.email, account.name, String(account.email ?? "").split("@")[0]]
    .filter((value): value is string => typeof value === "string" && value.length > 0);
  const folded = password.trim().toLowerCase();
  if ([account.username, account.email].some((value) => typeof value === "string" && value.trim().toLowerCase() === folded)) {
    return "must not be the username or e-mail address";
  }
  const result = zxcvbn().check(password, personal);
  if (result.score >= PASSWORD_POLICY.minScore) return null;
  const hint = result.feedback.warning ?? result.feedback.suggestions[0];
  return `is too easy to guess${hint ? ` (${hint.replace(/\.$/, "").toLowerCase()})` : ""}; use a longer phrase of unrelated words`;
}
