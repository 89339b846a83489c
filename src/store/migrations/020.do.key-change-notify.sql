-- Issue 22: API processes keep a key's authentication (the key row, its plan and paid term) in memory
-- for at most a second. Every change that could alter it (a key revoked, rotated, renamed or moved to
-- another plan, a subscription started, renewed or lapsed, a plan edited) tells every listening
-- process at commit, so a revoked key is refused at once everywhere, not after the second.
-- Statement-level triggers: one notification per statement, and PostgreSQL folds identical
-- notifications of one transaction into one.
CREATE FUNCTION jobledger_notify_key_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('jobledger_key_changes', TG_TABLE_NAME);
  RETURN NULL;
END
$$;

CREATE TRIGGER api_keys_notify_key_change AFTER UPDATE OR DELETE ON api_keys
  FOR EACH STATEMENT EXECUTE FUNCTION jobledger_notify_key_change();
CREATE TRIGGER key_subscriptions_notify_key_change AFTER INSERT OR UPDATE OR DELETE ON key_subscriptions
  FOR EACH STATEMENT EXECUTE FUNCTION jobledger_notify_key_change();
CREATE TRIGGER plans_notify_key_change AFTER UPDATE OR DELETE ON plans
  FOR EACH STATEMENT EXECUTE FUNCTION jobledger_notify_key_change();
