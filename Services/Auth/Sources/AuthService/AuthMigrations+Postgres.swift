import ServiceCore

extension AuthDatabase {
    /// The auth schema on PostgreSQL (schema `auth`), for ``PostgresAuthRepository``.
    public static let postgresMigrations: [PostgresMigration] = [
        PostgresMigration(
            "v1",
            [
                """
                CREATE TABLE users (
                    id TEXT PRIMARY KEY, username TEXT NOT NULL UNIQUE, password_hash TEXT NOT NULL,
                    created_at TIMESTAMPTZ NOT NULL)
                """,
                """
                CREATE TABLE clients (
                    id TEXT PRIMARY KEY, secret_hash TEXT NOT NULL, scopes TEXT NOT NULL,
                    created_at TIMESTAMPTZ NOT NULL, updated_at TIMESTAMPTZ NOT NULL)
                """,
                """
                CREATE TABLE token_families (
                    id TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                    created_at TIMESTAMPTZ NOT NULL, revoked_at TIMESTAMPTZ)
                """,
                "CREATE INDEX token_families_by_user ON token_families (user_id)",
                """
                CREATE TABLE refresh_tokens (
                    hash TEXT PRIMARY KEY,
                    family_id TEXT NOT NULL REFERENCES token_families (id) ON DELETE CASCADE,
                    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                    created_at TIMESTAMPTZ NOT NULL, expires_at TIMESTAMPTZ NOT NULL, used_at TIMESTAMPTZ)
                """,
                "CREATE INDEX refresh_tokens_by_family ON refresh_tokens (family_id)",
                "CREATE INDEX refresh_tokens_by_expiry ON refresh_tokens (expires_at)",
                """
                CREATE TABLE signing_keys (
                    kid TEXT PRIMARY KEY, private_key_pem TEXT, x TEXT NOT NULL, y TEXT NOT NULL,
                    created_at TIMESTAMPTZ NOT NULL, retired_at TIMESTAMPTZ)
                """,
            ]),
        PostgresMigration(
            "v2 revoked families by time",
            [
                // auth.revokedSessions reads the recent revocations every few seconds: never a scan of every session.
                "CREATE INDEX token_families_by_revocation ON token_families (revoked_at) WHERE revoked_at IS NOT NULL"
            ]),
        PostgresMigration(
            "v3 sign-in attempt counters",
            [
                // Sign-in limits shared by the replicas (PostgresAttemptCounters); keys are SHA-256 hex.
                """
                CREATE TABLE attempt_counters (
                    counter_key TEXT PRIMARY KEY, count BIGINT NOT NULL, expires_at TIMESTAMPTZ NOT NULL)
                """,
                "CREATE INDEX attempt_counters_by_expiry ON attempt_counters (expires_at)",
            ]),
    ]
}
