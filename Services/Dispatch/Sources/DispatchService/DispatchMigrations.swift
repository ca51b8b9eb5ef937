import ServiceCore

/// push-dispatch's schema, one versioned step at a time, for SQLite and PostgreSQL (never edit a shipped step; add
/// the next). Times are whole milliseconds since 1970 (`INTEGER`/`BIGINT`), so comparisons are cheap and what is read
/// equals what was written.
///
/// The two backends shipped different histories under their own version ids: SQLite grew the schema in four steps,
/// PostgreSQL started from its final shape (plus `registration_order`, and `active` as a `BOOLEAN`). Every id is kept
/// with its statements unchanged, each step empty on the backend that never had it, so no existing database is
/// migrated twice. Queries write `TRUE`/`FALSE` for `active` (both accept them) and order devices by
/// ``registrationOrder(_:)``.
public enum DispatchMigrations {
    /// Every step, in order.
    public static let all: [SQLMigration] = [
        SQLMigration("v1") { dialect in dialect == .postgresql ? postgresV1 : [sqliteV1] },
        SQLMigration("v2 delivery leases") { dialect in
            dialect == .postgresql
                ? []
                : [
                    """
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
                ]
        },
        SQLMigration("v3 device apns mode") { dialect in
            dialect == .postgresql
                ? []
                : [
                    """
                    -- The device's own APNs push mode ('alert' or 'background'); NULL uses the deployment's mode.
                    ALTER TABLE device ADD COLUMN apns_mode TEXT;
                    """
                ]
        },
        SQLMigration("v4 unfinished deliveries by device") { dialect in
            dialect == .postgresql
                ? []
                : [
                    """
                    -- A device's stream reads only its unfinished jobs, in sequence order: without this, every wake-up
                    -- walked the device's whole history (acknowledged jobs are kept until the send's retention ends).
                    CREATE INDEX delivery_unfinished_by_device ON delivery(device_id, sequence)
                        WHERE status IN ('queued', 'sent', 'retrying');
                    """
                ]
        },
        // PostgreSQL's own second step: SQLite's v4, the index a device's stream reads.
        SQLMigration("v2 unfinished deliveries by device") { dialect in
            dialect == .postgresql
                ? [
                    """
                    CREATE INDEX delivery_unfinished_by_device ON delivery (device_id, sequence)
                        WHERE status IN ('queued', 'sent', 'retrying')
                    """
                ] : []
        },
        // The device's P-256 public key (base64url) for sealed notifications; NULL for an unsealed device.
        SQLMigration("v5 device public key", ["ALTER TABLE device ADD COLUMN public_key TEXT"]),
        SQLMigration("v6 delivery trace context") { dialect in
            [
                // The W3C `traceparent` of the `push.send` span that queued the job (NULL when it was not traced), and
                // the send's `created_at` (for the delivery latency): copied onto each job, so the hot reads (claims,
                // a stream's pending jobs) need no lookup of the send per job.
                "ALTER TABLE delivery ADD COLUMN traceparent TEXT",
                "ALTER TABLE delivery ADD COLUMN send_created_at \(dialect == .postgresql ? "BIGINT" : "INTEGER")",
                // Jobs waiting at the upgrade get their send's time too (older finished ones keep NULL).
                """
                UPDATE delivery SET send_created_at =
                    (SELECT created_at FROM push_send WHERE push_send.notification_id = delivery.notification_id)
                WHERE status IN ('queued', 'sent', 'retrying')
                """,
            ]
        },
        SQLMigration("v7 idempotency owners") { dialect in
            [
                // The replica holding a pending reservation (NULL for reservations made before this step: those wait
                // for `SECUREPUSH_IDEMPOTENCY_TIMEOUT`).
                "ALTER TABLE idempotency_key ADD COLUMN owner TEXT",
                // One row per running replica on PostgreSQL, renewed every few seconds: a reservation whose owner's
                // lease lapsed was left by a replica that died, and a retry takes it over at once.
                """
                CREATE TABLE dispatch_replica (
                    id TEXT PRIMARY KEY NOT NULL,
                    lease_until \(dialect == .postgresql ? "BIGINT" : "INTEGER") NOT NULL
                )
                """,
            ]
        },
        // Devices whose sealed copies the store must delete (unregistered, re-keyed, moved or deactivated), written
        // in the transaction that changed the device and removed once the store answered `store.revokeDevices`.
        // `batch_id` names the call that carries a row (a retry sends the same id); NULL while waiting for one.
        SQLMigration("v8 device revocation outbox") { dialect in
            let integer = dialect == .postgresql ? "BIGINT" : "INTEGER"
            return [
                """
                CREATE TABLE device_revocation_outbox (
                    device_id TEXT PRIMARY KEY NOT NULL,
                    queued_at \(integer) NOT NULL,
                    batch_id TEXT,
                    batch_at \(integer)
                )
                """,
                "CREATE INDEX device_revocation_outbox_by_batch ON device_revocation_outbox (batch_id, queued_at)",
            ]
        },
        // A `direct` token is its owner's own name for a device: another user registering the same token gets a
        // device of their own and never moves this one. Platform tokens (APNs, FCM, WNS, Web Push) stay unique.
        SQLMigration(
            "v9 direct tokens per owner",
            [
                "DROP INDEX device_by_platform_token",
                "CREATE UNIQUE INDEX device_by_platform_token ON device (platform, token) WHERE platform <> 'direct'",
                "CREATE UNIQUE INDEX device_by_owner_direct_token ON device (owner_id, token) WHERE platform = 'direct'",
            ]),
        // An APNs, FCM or WNS token registered by someone other than its device's owner: a pending device that
        // becomes the token's device only when its owner answers the challenge pushed to the token (`devices.verify`).
        // One per (token, user); `challenge_digest` is the SHA-256 of the challenge, never the challenge itself;
        // `challenge_sent_at` is 0 while its challenge waits for the token's next push slot.
        SQLMigration("v10 device verification") { dialect in
            let integer = dialect == .postgresql ? "BIGINT" : "INTEGER"
            return [
                """
                CREATE TABLE device_verification (
                    device_id TEXT PRIMARY KEY NOT NULL,
                    owner_id TEXT NOT NULL,
                    platform TEXT NOT NULL,
                    token TEXT NOT NULL,
                    name TEXT,
                    apns_mode TEXT,
                    public_key TEXT,
                    challenge_digest TEXT NOT NULL,
                    failed_tries \(integer) NOT NULL DEFAULT 0,
                    created_at \(integer) NOT NULL,
                    challenge_sent_at \(integer) NOT NULL,
                    expires_at \(integer) NOT NULL
                )
                """,
                "CREATE UNIQUE INDEX device_verification_by_token ON device_verification (platform, token, owner_id)",
                "CREATE INDEX device_verification_by_owner ON device_verification (owner_id, created_at)",
                // When a challenge was last pushed to each token, whoever asked: at most one per token per
                // `DeviceVerification.resendInterval`, however many users register it.
                """
                CREATE TABLE device_challenge_push (
                    platform TEXT NOT NULL,
                    token TEXT NOT NULL,
                    pushed_at \(integer) NOT NULL,
                    PRIMARY KEY (platform, token)
                )
                """,
            ]
        },
        // Several apps in one deployment (issue 27). Every device, pending device and send belongs to one app; rows made
        // before this step belong to `default`, the app of the `SECUREPUSH_*` provider variables. Platform tokens are
        // unique per app (one phone can hold a retail and a business app with one APNs token each). `app` holds the
        // apps created with `securepush apps create`: `credentials` is sealed under SECUREPUSH_APPS_KEY_FILE
        // (`aes256gcm:<key id>:<base64>`), never clear text; `revision` grows with every change, so replicas reload
        // only what changed. Code from before this step must not run on the migrated database (it would ignore apps).
        SQLMigration("v11 apps") { dialect in
            let integer = dialect == .postgresql ? "BIGINT" : "INTEGER"
            return [
                """
                CREATE TABLE app (
                    id TEXT PRIMARY KEY NOT NULL,
                    display_name TEXT NOT NULL,
                    credentials TEXT NOT NULL,
                    limits TEXT NOT NULL,
                    allowed_origins TEXT NOT NULL,
                    created_at \(integer) NOT NULL,
                    updated_at \(integer) NOT NULL,
                    revision \(integer) NOT NULL
                )
                """,
                "ALTER TABLE device ADD COLUMN app_id TEXT NOT NULL DEFAULT 'default'",
                "ALTER TABLE device_verification ADD COLUMN app_id TEXT NOT NULL DEFAULT 'default'",
                "ALTER TABLE push_send ADD COLUMN app_id TEXT NOT NULL DEFAULT 'default'",
                "DROP INDEX device_by_platform_token",
                "DROP INDEX device_by_owner_direct_token",
                "DROP INDEX device_verification_by_token",
                """
                CREATE UNIQUE INDEX device_by_platform_token ON device (app_id, platform, token)
                    WHERE platform <> 'direct'
                """,
                """
                CREATE UNIQUE INDEX device_by_owner_direct_token ON device (app_id, owner_id, token)
                    WHERE platform = 'direct'
                """,
                """
                CREATE UNIQUE INDEX device_verification_by_token
                    ON device_verification (app_id, platform, token, owner_id)
                """,
                // A platform token held by another user in any app makes a registration pending (issue 24 across
                // apps); deleting an app finds its devices.
                "CREATE INDEX device_by_token ON device (platform, token)",
                "CREATE INDEX device_by_app ON device (app_id)",
            ]
                // Each app's sends in its current minute (`sendsPerMinute`), shared by every replica.
                + SQLAttemptCounters.tableStatements(dialect, table: SQLAppRepository.sendCountersTable)
        },
        // Send controls (issue 29): what an idempotency key was first used with (a digest of the recipients, payload
        // and options) and, for a send to many, its whole result; each send's priority and collapse id, copied onto
        // its jobs for the providers; a collapse id's earlier sends found by (client, recipient, app, id). A scheduled
        // send waits in `state` 'scheduled' until `send_at`, is claimed by one replica ('publishing', under a lease)
        // and ends 'sent', or 'cancelled' by push.cancel; what its jobs need then (sealed only, trace context) is kept.
        SQLMigration("v12 send controls") { dialect in
            let integer = dialect == .postgresql ? "BIGINT" : "INTEGER"
            return [
                "ALTER TABLE idempotency_key ADD COLUMN fingerprint TEXT",
                "ALTER TABLE idempotency_key ADD COLUMN result TEXT",
                "ALTER TABLE push_send ADD COLUMN priority TEXT",
                "ALTER TABLE push_send ADD COLUMN collapse_id TEXT",
                "ALTER TABLE delivery ADD COLUMN priority TEXT",
                "ALTER TABLE delivery ADD COLUMN collapse_id TEXT",
                """
                CREATE INDEX push_send_by_collapse_id ON push_send (client_id, recipient_id, app_id, collapse_id)
                    WHERE collapse_id IS NOT NULL
                """,
                "ALTER TABLE push_send ADD COLUMN state TEXT NOT NULL DEFAULT 'sent'",
                "ALTER TABLE push_send ADD COLUMN send_at \(integer)",
                "ALTER TABLE push_send ADD COLUMN sealed_only INTEGER NOT NULL DEFAULT 0",
                "ALTER TABLE push_send ADD COLUMN traceparent TEXT",
                "ALTER TABLE push_send ADD COLUMN lease_owner TEXT",
                "ALTER TABLE push_send ADD COLUMN lease_until \(integer)",
                """
                CREATE INDEX push_send_due ON push_send (send_at)
                    WHERE state IN ('scheduled', 'publishing')
                """,
            ]
        },
        // Signed webhooks (issue 30): each client's endpoints (secrets sealed with the apps key), one row per event and
        // endpoint (kept for replay, sent from here under a lease, retried with backoff; no foreign key: an event
        // recorded as its endpoint is deleted is given up when claimed), and how far the event feed read each source.
        // Finished deliveries (of clients with an endpoint when the job was made: `webhook`) and deactivated devices
        // are found by time, through partial indexes that hold only the rows an event is made of.
        SQLMigration("v13 webhooks") { dialect in
            let integer = dialect == .postgresql ? "BIGINT" : "INTEGER"
            let serial = dialect == .postgresql ? "BIGSERIAL PRIMARY KEY" : "INTEGER PRIMARY KEY AUTOINCREMENT"
            return [
                """
                CREATE TABLE webhook_endpoint (
                    id TEXT PRIMARY KEY NOT NULL,
                    client_id TEXT NOT NULL,
                    app_ids TEXT NOT NULL,
                    url TEXT NOT NULL,
                    events TEXT NOT NULL,
                    description TEXT,
                    secret TEXT NOT NULL,
                    previous_secret TEXT,
                    previous_secret_until \(integer),
                    created_at \(integer) NOT NULL,
                    failing_since \(integer),
                    last_failure_at \(integer),
                    disabled_at \(integer)
                )
                """,
                "CREATE INDEX webhook_endpoint_by_client ON webhook_endpoint (client_id, created_at)",
                """
                CREATE TABLE webhook_message (
                    sequence \(serial),
                    endpoint_id TEXT NOT NULL,
                    event_id TEXT NOT NULL,
                    event_type TEXT NOT NULL,
                    body TEXT NOT NULL,
                    created_at \(integer) NOT NULL,
                    status TEXT NOT NULL,
                    attempts INTEGER NOT NULL DEFAULT 0,
                    next_attempt_at \(integer) NOT NULL,
                    lease_owner TEXT,
                    lease_until \(integer),
                    last_error TEXT,
                    delivered_at \(integer)
                )
                """,
                "CREATE UNIQUE INDEX webhook_message_by_event ON webhook_message (endpoint_id, event_id)",
                "CREATE INDEX webhook_message_due ON webhook_message (next_attempt_at) WHERE status = 'pending'",
                "CREATE INDEX webhook_message_by_time ON webhook_message (created_at)",
                """
                CREATE TABLE webhook_cursor (
                    source TEXT PRIMARY KEY NOT NULL,
                    position \(integer) NOT NULL
                )
                """,
                "ALTER TABLE delivery ADD COLUMN webhook INTEGER",
                """
                CREATE INDEX delivery_finished_by_time ON delivery (updated_at, sequence)
                    WHERE webhook = 1 AND status IN ('sent', 'acknowledged', 'failed', 'collapsed')
                """,
                "CREATE INDEX device_by_deactivation ON device (deactivated_at, id) WHERE deactivated_at IS NOT NULL",
            ]
        },
        // The audit trail (issue 31), the same tables as every service's.
        AuditSchema.migration("v14 audit trail", tables: AuditTables(prefix: "dispatch")),
    ]

    /// The service's schema: `dispatch` on PostgreSQL, built by ``all``.
    public static let schema = ServiceSchema(service: "push-dispatch", postgresSchema: "dispatch", migrations: all)

    /// The channel push-dispatch replicas tell each other about new jobs on (`d:<device id>`, `p:<platform>`).
    public static let wakeChannel = "securepush_dispatch_wake"

    /// The column that orders devices registered in the same millisecond: SQLite's `rowid`, PostgreSQL's
    /// `registration_order` (a `BIGSERIAL`, as PostgreSQL has no `rowid`).
    static func registrationOrder(_ dialect: SQLDialect) -> String {
        dialect == .postgresql ? "registration_order" : "rowid"
    }

    /// SQLite's first step, as shipped.
    private static let sqliteV1 = """
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

    /// PostgreSQL's first step, as shipped: SQLite's final shape.
    private static let postgresV1 = [
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
    ]
}
