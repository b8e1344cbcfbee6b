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
  /** PostgreSQL connections the server opens at most (DATABASE_POOL_SIZE, default 10). */
  databasePoolSize: number;
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
  /** Requests per minute per user (or per address when anonymous); 0 turns it off (RATE_LIMIT, default 600). */
  rateLimit: number;
  /** Failed sign-ins per 15 minutes per address and account; 0 turns it off (LOGIN_RATE_LIMIT, default 10). */
  loginRateLimit: number;
  /** Origins whose browser apps may call the API with credentials (CORS_ORIGINS, comma-separated; default none). */
  corsOrigins: string[];
  /** Express "trust proxy" setting, for client addresses behind a reverse proxy (TRUST_PROXY, default off). */
  trustProxy: string | number | false;
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, minimum = 1): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < minimum) throw new Error(`${name} must be a whole number of at least ${minimum}, got "${raw}"`);
  return value;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const registration = env.REGISTRATION === "open" ? "open" : "closed";
  return {
    port: integer(env, "PORT", 3000),
    host: env.HOST || "0.0.0.0",
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: env.DATA_DIR || "data",
    databasePoolSize: integer(env, "DATABASE_POOL_SIZE", 10),
    admin:
      env.ADMIN_USERNAME && env.ADMIN_PASSWORD
        ? { username: env.ADMIN_USERNAME, password: env.ADMIN_PASSWORD, email: env.ADMIN_EMAIL || undefined }
        : undefined,
    registration,
    accessTokenTtl: integer(env, "ACCESS_TOKEN_TTL", 3600),
    refreshTokenTtl: integer(env, "REFRESH_TOKEN_TTL", 14 * 24 * 3600),
    sessionTtl: integer(env, "SESSION_TTL", 7 * 24 * 3600),
    cookieSecure: env.COOKIE_SECURE === "true",
    bodyLimit: env.BODY_LIMIT || "1mb",
    rateLimit: integer(env, "RATE_LIMIT", 600, 0),
    loginRateLimit: integer(env, "LOGIN_RATE_LIMIT", 10, 0),
    corsOrigins: (env.CORS_ORIGINS ?? "").split(",").map((origin) => origin.trim()).filter(Boolean),
    trustProxy: !env.TRUST_PROXY ? false : /^\d+$/.test(env.TRUST_PROXY) ? Number(env.TRUST_PROXY) : env.TRUST_PROXY,
  };
}
