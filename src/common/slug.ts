/** Wiki page names: the title's words run together, keeping letters, digits and _ - . : (HUBzero's style). */
export function pagenameFromTitle(title: string): string {
  const name = title
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .split(/\s+/)
    .map((word) => word.replace(/[^A-Za-z0-9_.:-]/g, ""))
    .filter(Boolean)
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join("");
  return name || "Page";
}

/** Blog aliases: lower-case words joined by hyphens. */
export function aliasFromTitle(title: string): string {
  const alias = title
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return alias || "entry";
}

/** The first of base, base_2, base_3 … (joined by `separator`) that `taken` does not contain. */
export function firstFree(base: string, taken: Set<string>, separator: string): string {
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base}${separator}${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}
