import GRDB

/// push-dispatch's schema, one versioned migration at a time (never edit a shipped migration; add the next).
///
/// Dates are whole milliseconds since 1970 (`INTEGER`), so comparisons are cheap and what is read equals what was written.
public enum DispatchMigrations {
    /// The migrator `SQLiteDatabase.open(path:migrator:)` applies.
    public static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE device (
                        id TEXT PRIMARY KEY NOT NULL,
                        owner_id TEXT NOT NULL,
                        platform TEXT NOT NULL,
                        -- NULL for direct devices registered without a token: each of those is its own device.
                        token TEXT,
                        name TEXT,
                        created_at INTEGER NOT NULL,
                        last_registered_at INTEGER NOT NULL,
                        active INTEGER NOT NULL DEFAULT 1
                    );
                    -- Re-registering a platform token updates its device; SQLite lets NULL tokens repeat.
                    CREATE UNIQUE INDEX device_by_platform_token ON device(platform, token);
                    CREATE INDEX device_by_owner ON device(owner_id, created_at);

                    CREATE TABLE push_send (
                        notification_id TEXT PRIMARY KEY NOT NULL,
                        client_id TEXT NOT NULL,
                        recipient_id TEXT NOT NULL,
                        expires_at INTEGER NOT NULL,
                        created_at INTEGER NOT NULL,
                        -- The push.send result as first answered, replayed for a repeated idempotency key.
                        result TEXT NOT NULL
                    );
                    CREATE INDEX push_send_by_expiry ON push_send(expires_at);

                    -- Reserved before the store is called, so concurrent duplicates cannot both send.
                    CREATE TABLE idempotency_key (
                        client_id TEXT NOT NULL,
                        key TEXT NOT NULL,
                        state TEXT NOT NULL CHECK (state IN ('pending', 'done')),
                        reservation_id TEXT NOT NULL,
                        reserved_at INTEGER NOT NULL,
                        notification_id TEXT REFERENCES push_send(notification_id) ON DELETE CASCADE,
                        PRIMARY KEY (client_id, key)
                    );

                    -- One row per (notification, device): the durable delivery job. `sequence` orders a device's stream.
                    CREATE TABLE delivery (
                        sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                        notification_id TEXT NOT NULL REFERENCES push_send(notification_id) ON DELETE CASCADE,
                        device_id TEXT NOT NULL,
                        platform TEXT NOT NULL,
                        status TEXT NOT NULL,
                        attempts INTEGER NOT NULL DEFAULT 0,
                        last_error TEXT,
                        next_attempt_at INTEGER,
                        expires_at INTEGER NOT NULL,
                        updated_at INTEGER NOT NULL,
                        UNIQUE (notification_id, device_id)
                    );
                    CREATE INDEX delivery_by_device ON delivery(device_id, status, sequence);
                    CREATE INDEX delivery_by_status ON delivery(status, expires_at);
                    """
            )
        }
        migrator.registerMigration("v2 delivery leases") { db in
            try db.execute(
                sql: """
                    -- A delivery worker holds a job while it attempts it; a lease that lapsed (its worker crashed) frees it.
                    ALTER TABLE delivery ADD COLUMN lease_until INTEGER;
                    ALTER TABLE delivery ADD COLUMN lease_owner TEXT;
                    -- Every job waiting for an attempt has a due time (queued jobs: when they were queued).
                    UPDATE delivery SET next_attempt_at = updated_at
                        WHERE next_attempt_at IS NULL AND status IN ('queued', 'retrying');
                    -- Claiming the next due jobs of a platform reads only unfinished rows, in due order.
                    CREATE INDEX delivery_due ON delivery(platform, next_attempt_at) WHERE status IN ('queued', 'retrying');
                    CREATE INDEX delivery_leased ON delivery(lease_owner, lease_until) WHERE lease_owner IS NOT NULL;
                    -- When a provider reported the device gone (NULL while active).
                    ALTER TABLE device ADD COLUMN deactivated_at INTEGER;
                    """
            )
        }
        migrator.registerMigration("v3 device apns mode") { db in
            try db.execute(
                sql: """
                    -- The device's own APNs push mode ('alert' or 'background'); NULL uses the deployment's mode.
                    ALTER TABLE device ADD COLUMN apns_mode TEXT;
                    """
            )
        }
        migrator.registerMigration("v4 unfinished deliveries by device") { db in
            try db.execute(
                sql: """
                    -- A device's stream reads only its unfinished jobs, in sequence order: without this, every wake-up
                    -- walked the device's whole history (acknowledged jobs are kept until the send's retention ends).
                    CREATE INDEX delivery_unfinished_by_device ON delivery(device_id, sequence)
                        WHERE status IN ('queued', 'sent', 'retrying');
                    """
            )
        }
        migrator.registerMigration("v5 device public key") { db in
            try db.execute(
                sql: """
                    -- The device's P-256 public key (base64url) for sealed notifications; NULL for an unsealed device.
                    ALTER TABLE device ADD COLUMN public_key TEXT;
                    """
            )
        }
        return migrator
    }
}
