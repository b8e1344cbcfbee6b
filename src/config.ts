/** Server configuration, read once from the environment. Every option is documented in the README. */
export interface Config {
  /** TCP port (PORT, default 3000). */
  port: number;
  /** Interface to bind (HOST, default 0.0.0.0). */
  host: string;
  /** postgres:// URL (DATABASE_URL); unset means the embedded PGlite database. */
  databaseUrl?: string;
  /** Folder of the embedded database (DATA_DIR, default ./data). */
  dataDir: string;
  /** Bootstrap administrator (ADMIN_USERNAME / ADMIN_PASSWORD / ADMIN_EMAIL). */
  admin?: { username: string; password: string; email?: string };
  /** `open` lets anyone create an account through POST /api/members (REGISTRATION, default closed). */
  registration: "open" | "closed";
  /** Lifetime of bearer tokens in seconds (ACCESS_TOKEN_TTL, default 3600). */
  accessTokenTtl: number;
  /** Lifetime of refresh tokens in seconds (REFRESH_TOKEN_TTL, default 1209600 = 14 days). */
  refreshTokenTtl: number;
  /** Lifetime of cookie sessions in seconds (SESSION_TTL, default 604800 = 7 days). */
  sessionTtl: number;
  /** Mark the session cookie Secure (COOKIE_SECURE=true behind HTTPS; default false). */
  cookieSecure: boolean;
  /** Largest accepted request body (BODY_LIMIT, default 1mb). */
  bodyLimit: string;
}

function integer(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const registration = env.REGISTRATION === "open" ? "open" : "closed";
  return {
    port: integer("PORT", 3000),
    host: env.HOST || "0.0.0.0",
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: env.DATA_DIR || "data",
    admin:
      env.ADMIN_USERNAME && env.ADMIN_PASSWORD
        ? { username: env.ADMIN_USERNAME, password: env.ADMIN_PASSWORD, email: env.ADMIN_EMAIL || undefined }
        : undefined,
    registration,
    accessTokenTtl: integer("ACCESS_TOKEN_TTL", 3600),
    refreshTokenTtl: integer("REFRESH_TOKEN_TTL", 14 * 24 * 3600),
    sessionTtl: integer("SESSION_TTL", 7 * 24 * 3600),
    cookieSecure: env.COOKIE_SECURE === "true",
    bodyLimit: env.BODY_LIMIT || "1mb",
  };
}
