-- Usernames are unique regardless of case: "ADMIN" can no longer be registered beside "admin".
-- username_key holds lower(username), kept by a trigger (so every writer, the CLI and tests included,
-- gets it without knowing), and its unique index is what refuses a clash, also between concurrent sign-ups.
ALTER TABLE "users" ADD COLUMN     "username_key" TEXT;

-- Existing clashes are resolved before the index is built: of the accounts whose names differ only in
-- case, the oldest (lowest id) keeps its name; every other one is renamed to <name>_<id> (cut so it stays
-- within 64 characters), or, should an account hold that already (underscores are allowed in names),
-- <name>_<id>_2, _3 … until the name is free regardless of case. Nothing else about the
-- accounts changes: they sign in with the new name and their own password. A NOTICE names each rename,
-- and `hubgraph user list` shows the names afterwards.
DO $$
DECLARE
  renamed RECORD;
  candidate text;
  attempt int;
BEGIN
  FOR renamed IN
    SELECT u.id, u.username FROM users u
     WHERE EXISTS (SELECT 1 FROM users older WHERE lower(older.username) = lower(u.username) AND older.id < u.id)
     ORDER BY u.id
  LOOP
    attempt := 1;
    LOOP
      candidate := CASE WHEN attempt = 1 THEN renamed.id::text ELSE renamed.id || '_' || attempt END;
      candidate := left(renamed.username, 63 - length(candidate)) || '_' || candidate;
      EXIT WHEN NOT EXISTS (SELECT 1 FROM users WHERE lower(username) = lower(candidate));
      attempt := attempt + 1;
    END LOOP;
    UPDATE users SET username = candidate WHERE id = renamed.id;
    RAISE NOTICE 'username "%" (id %) clashed with an older account regardless of case; renamed to "%"', renamed.username, renamed.id, candidate;
  END LOOP;
END $$;

UPDATE "users" SET "username_key" = lower("username");

CREATE FUNCTION users_username_key() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.username_key := lower(NEW.username);
  RETURN NEW;
END $$;

CREATE TRIGGER users_username_key BEFORE INSERT OR UPDATE OF username ON "users"
  FOR EACH ROW EXECUTE FUNCTION users_username_key();

-- CreateIndex
CREATE UNIQUE INDEX "users_username_key_key" ON "users"("username_key");
