-- Servers keep the access tokens they have looked up (src/auth/bearer-cache.ts). Whatever changes what a
-- token stands for — a token updated (refreshed, revoked) or deleted, a user updated (demoted, renamed) or
-- deleted — notifies every server when its transaction commits, whichever process wrote it (a server, the
-- CLI, the purge), and each server forgets every token it kept. Statement triggers: one notice per
-- statement, however many rows it touched (PostgreSQL also folds equal notices of one transaction).

CREATE FUNCTION auth_changed_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('hubgraph_auth_changed', '');
  RETURN NULL;
END
$$;

CREATE TRIGGER oauth_tokens_auth_changed AFTER UPDATE OR DELETE OR TRUNCATE ON oauth_tokens
  FOR EACH STATEMENT EXECUTE FUNCTION auth_changed_notify();
CREATE TRIGGER users_auth_changed AFTER UPDATE OR DELETE OR TRUNCATE ON users
  FOR EACH STATEMENT EXECUTE FUNCTION auth_changed_notify();
