/**
 * A small deterministic generator (mulberry32): numbers in [0, 1) from a 32-bit seed, so a property suite's
 * run replays exactly from the seed it prints (the fuzzer's FUZZ_SEED, the authorization matrix's MATRIX_SEED).
 */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
