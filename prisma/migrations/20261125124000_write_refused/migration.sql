-- A write's refusal raised from inside its own statement (src/common/scopes.ts, scopeWriteCheck): a create
-- asks whether its scope exists and admits the caller in the statement that inserts, so nothing can change
-- between the check and the insert (a group deleted, a member removed). The SQLSTATE says which answer:
-- HG400 a bad parameter (named in DETAIL), HG403 a refusal.
CREATE FUNCTION write_refused(status text, parameter text, message text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION USING ERRCODE = status, MESSAGE = message, DETAIL = parameter;
END
$$;
