import ServiceCore

extension DispatchMigrations {
    /// push-dispatch's schema on PostgreSQL (schema `dispatch`): the SQLite schema's final shape, for
    /// ``PostgresDeviceRepository`` and ``PostgresDeliveryRepository``.
    public static let postgres: [PostgresMigration] = [
        PostgresMigration(
            "v1",
            [
                """
                CREATE TABLE device (
                    id TEXT PRIMARY KEY,
                    owner_id TEXT NOT NULL,
                    platform TEXT NOT NULL,
                    token TEXT,
                    name TEXT,
                    created_at BIGINT NOT NULL,
                    last_registered_at BIGINT NOT NULL,
                    active BOOLEAN NOT NULL DEFAULT TRUE,
                    deactivated_at BIGINT,
                    apns_mode TEXT,
                    registration_order BIGSERIAL NOT NULL
                )
                """,
                // NULL tokens repeat (each tokenless direct device is its own device), as in SQLite.
                "CREATE UNIQUE INDEX device_by_platform_token ON device (platform, token)",
                "CREATE INDEX device_by_owner ON device (owner_id, created_at)",
                """
                CREATE TABLE push_send (
                    notification_id TEXT PRIMARY KEY,
                    client_id TEXT NOT NULL,
                    recipient_id TEXT NOT NULL,
                    expires_at BIGINT NOT NULL,
                    created_at BIGINT NOT NULL,
                    result TEXT NOT NULL
                )
                """,
                "CREATE INDEX push_send_by_expiry ON push_send (expires_at)",
                """
                CREATE TABLE idempotency_key (
                    client_id TEXT NOT NULL,
                    key TEXT NOT NULL,
                    state TEXT NOT NULL CHECK (state IN ('pending', 'done')),
                    reservation_id TEXT NOT NULL,
                    reserved_at BIGINT NOT NULL,
                    notification_id TEXT REFERENCES push_send (notification_id) ON DELETE CASCADE,
                    PRIMARY KEY (client_id, key)
                )
                """,
                """
                CREATE TABLE delivery (
                    sequence BIGSERIAL PRIMARY KEY,
                    notification_id TEXT NOT NULL REFERENCES push_send (notification_id) ON DELETE CASCADE,
                    device_id TEXT NOT NULL,
                    platform TEXT NOT NULL,
                    status TEXT NOT NULL,
                    attempts INTEGER NOT NULL DEFAULT 0,
                    last_error TEXT,
                    next_attempt_at BIGINT,
                    expires_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL,
                    lease_until BIGINT,
                    lease_owner TEXT,
                    UNIQUE (notification_id, device_id)
                )
                """,
                "CREATE INDEX delivery_by_device ON delivery (device_id, status, sequence)",
                "CREATE INDEX delivery_by_status ON delivery (status, expires_at)",
                """
                CREATE INDEX delivery_due ON delivery (platform, next_attempt_at)
                    WHERE status IN ('queued', 'retrying')
                """,
                "CREATE INDEX delivery_leased ON delivery (lease_owner, lease_until) WHERE lease_owner IS NOT NULL",
            ]),
        // A device's stream reads only its unfinished jobs, in sequence order, not the device's whole history.
        PostgresMigration(
            "v2 unfinished deliveries by device",
            [
                """
                CREATE INDEX delivery_unfinished_by_device ON delivery (device_id, sequence)
                    WHERE status IN ('queued', 'sent', 'retrying')
                """
            ]),
        // The device's P-256 public key (base64url) for sealed notifications; NULL for an unsealed device.
        PostgresMigration("v3 device public key", ["ALTER TABLE device ADD COLUMN public_key TEXT"]),
    ]

    /// The channel push-dispatch replicas tell each other about new jobs on (`d:<device id>`, `p:<platform>`).
    public static let wakeChannel = "securepush_dispatch_wake"
}
