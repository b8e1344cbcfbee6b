-- Accounts are looked up by e-mail regardless of case on every sign-in, sign-up and invitation
-- (src/users/names.ts emailIsSql: lower(email) = lower($1)), and nothing indexed lower(email): each lookup
-- read the whole users table. Prisma's schema cannot declare an expression index, so, as username_key
-- (migration 20261124120000), email_key holds lower(email), kept by a trigger (every writer, the CLI and
-- tests included, gets it without knowing), under a plain index. Not unique: sign-up refuses an address
-- taken regardless of case, but rows stored before may differ only in case, and they stay as they are.
ALTER TABLE "users" ADD COLUMN     "email_key" TEXT;

UPDATE "users" SET "email_key" = lower("email");

CREATE FUNCTION users_email_key() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.email_key := lower(NEW.email);
  RETURN NEW;
END $$;

CREATE TRIGGER users_email_key BEFORE INSERT OR UPDATE OF email ON "users"
  FOR EACH ROW EXECUTE FUNCTION users_email_key();

-- CreateIndex
CREATE INDEX "users_email_key_idx" ON "users"("email_key");
