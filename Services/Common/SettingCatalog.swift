/// Every variable a SecurePush program, its compose files or its tests read, declared once: ``Setting/name``, default,
/// readers and meaning. `docs/configuration.md` is generated from it (`securepush config docs`), and a service warns
/// at start about a set `SECUREPUSH_*` variable that is not here (refused in production): a typo must never pass for a
/// setting.
public enum SettingCatalog {
    /// `SECUREPUSH_MAX_BODY_BYTES`.
    public static let maxBodyBytes = IntegerSetting(
        #"SECUREPUSH_MAX_BODY_BYTES"#, group: .shared, default: 1 << 20, in: 1024...(64 << 20), usedBy: #"all"#,
        #"largest request body (HTTP 413 above)"#)

    /// `SECUREPUSH_MAX_BATCH`.
    public static let maxBatch = IntegerSetting(
        #"SECUREPUSH_MAX_BATCH"#, group: .shared, default: 100, in: 1...10_000, usedBy: #"all"#,
        #"most calls per JSON-RPC batch"#)

    /// `SECUREPUSH_IDLE_TIMEOUT`.
    public static let idleTimeout = IntegerSetting(
        #"SECUREPUSH_IDLE_TIMEOUT"#, group: .shared, default: 120, in: 1...86_400, unit: " s", usedBy: #"all"#,
        #"seconds a connection may stay with no request in flight before it gets GOAWAY and is closed (an open event stream counts as in flight)"#
    )

    /// `SECUREPUSH_HANDSHAKE_TIMEOUT`.
    public static let handshakeTimeout = IntegerSetting(
        #"SECUREPUSH_HANDSHAKE_TIMEOUT"#, group: .shared, default: 10, in: 1...300, unit: " s", usedBy: #"all"#,
        #"seconds a new connection may take to start its first request (TLS and HTTP/2 handshakes included) before it is closed"#
    )

    /// `SECUREPUSH_REQUEST_TIMEOUT`.
    public static let requestTimeout = IntegerSetting(
        #"SECUREPUSH_REQUEST_TIMEOUT"#, group: .shared, default: 10, in: 1...3_600, unit: " s", usedBy: #"all"#,
        #"seconds a client may take to *send* one request (HEADERS to the end of its body); one still arriving gets `408` (HTTP/1.1: `408` and the connection closes)"#
    )

    /// `SECUREPUSH_MAX_CONNECTIONS`.
    public static let maxConnections = IntegerSetting(
        #"SECUREPUSH_MAX_CONNECTIONS"#, group: .shared, default: 16_000, in: 1...1_000_000, usedBy: #"all"#,
        #"connections open at once; more are closed as they are accepted"#)

    /// `SECUREPUSH_MAX_CONNECTIONS_PER_ADDRESS`.
    public static let maxConnectionsPerAddress = IntegerSetting(
        #"SECUREPUSH_MAX_CONNECTIONS_PER_ADDRESS"#, group: .shared, default: 512, in: 1...1_000_000, usedBy: #"all"#,
        #"connections open at once from one address (IPv6: one /64); trusted proxies are exempt; more are closed as they are accepted"#
    )

    /// `SECUREPUSH_STREAMING_HEADER_TABLE_BYTES`.
    public static let streamingHeaderTableBytes = IntegerSetting(
        #"SECUREPUSH_STREAMING_HEADER_TABLE_BYTES"#, group: .shared, default: 0, in: 0...4096,
        usedBy: #"all (push-dispatch's event streams)"#,
        #"HPACK table (bytes, as RFC 7541 counts them) a client may keep in the server's decoder on a connection once it holds an event stream, advertised then as `SETTINGS_HEADER_TABLE_SIZE`: what a connected device's client indexes would otherwise stay in memory for hours (~5 kB a device with token-sized fields). 4096 keeps the RFC's table, for a client that fails to apply a smaller one (its connection then ends with `COMPRESSION_ERROR`, counted in `securepush_http2_header_table_failures_total` and logged at `notice` as `http2.header_table.not_applied`)"#
    )

    /// `SECUREPUSH_SHUTDOWN_TIMEOUT`.
    public static let shutdownTimeout = IntegerSetting(
        #"SECUREPUSH_SHUTDOWN_TIMEOUT"#, group: .shared, default: 10, in: 1...600, unit: " s",
        usedBy: #"all (and `up`)"#,
        #"on SIGTERM/SIGINT: seconds in-flight requests may take to finish; the process exits within this time whatever clients do"#
    )

    /// `SECUREPUSH_ACCESS_TOKEN_TTL`.
    public static let accessTokenTTL = IntegerSetting(
        #"SECUREPUSH_ACCESS_TOKEN_TTL"#, group: .auth, default: 900, in: 1...86_400, unit: " s", usedBy: #"auth"#,
        #"access token lifetime, seconds"#)

    /// `SECUREPUSH_REFRESH_TOKEN_TTL`.
    public static let refreshTokenTTL = IntegerSetting(
        #"SECUREPUSH_REFRESH_TOKEN_TTL"#, group: .auth, default: 2_592_000, in: 60...31_536_000, unit: " s",
        usedBy: #"auth"#,
        #"refresh token lifetime, seconds"#)

    /// `SECUREPUSH_LOGIN_MAX_FAILURES`.
    public static let loginMaxFailures = IntegerSetting(
        #"SECUREPUSH_LOGIN_MAX_FAILURES"#, group: .auth, default: 10, in: 0...1_000_000, usedBy: #"auth"#,
        #"failed sign-ins per (username or client id, client address) within the window before `-32029` from that address only; one address may fail 5× this over all accounts; an account failing 5× this from all addresses is slowed (up to 5 s per attempt), never refused; 0 turns these limits off ([docs/security.md](security.md#sign-in-limits-auth))"#
    )

    /// `SECUREPUSH_LOGIN_FAILURE_WINDOW`.
    public static let loginFailureWindow = IntegerSetting(
        #"SECUREPUSH_LOGIN_FAILURE_WINDOW"#, group: .auth, default: 300, in: 1...86_400, unit: " s", usedBy: #"auth"#,
        #"that window, seconds, counted from the first failure"#)

    /// `SECUREPUSH_AUTH_RATE_LIMIT`.
    public static let authRateLimit = IntegerSetting(
        #"SECUREPUSH_AUTH_RATE_LIMIT"#, group: .auth, default: 120, in: 0...1_000_000, usedBy: #"auth"#,
        #"calls of `auth.register`, `auth.login`, `auth.refresh`, `auth.logout`, `auth.clientToken`, `auth.keys` per minute per client address (each call of a batch counts); 0 turns it off (benchmarks; refused in production)"#
    )

    /// `SECUREPUSH_BCRYPT_QUEUE`.
    public static let bcryptQueue = IntegerSetting(
        #"SECUREPUSH_BCRYPT_QUEUE"#, group: .auth, default: 16, in: 0...10_000, usedBy: #"auth"#,
        #"password checks waiting for a bcrypt thread (one runs per core) before more get `-32029` at once"#)

    /// `SECUREPUSH_BCRYPT_PER_ADDRESS`.
    public static let bcryptPerAddress = IntegerSetting(
        #"SECUREPUSH_BCRYPT_PER_ADDRESS"#, group: .auth, default: 4, in: 1...10_000, usedBy: #"auth"#,
        #"password checks one client address may have running or waiting; more get `-32029` at once"#)

    /// `SECUREPUSH_BCRYPT_CHECKS_PER_ADDRESS`.
    public static let bcryptChecksPerAddress = IntegerSetting(
        #"SECUREPUSH_BCRYPT_CHECKS_PER_ADDRESS"#, group: .auth, default: 30, in: 0...1_000_000, usedBy: #"auth"#,
        #"password checks (bcrypt), successful or not, per minute per client address; 0 turns the budget off"#)

    /// `SECUREPUSH_MAX_TTL`.
    public static let maxTTL = IntegerSetting(
        #"SECUREPUSH_MAX_TTL"#, group: .shared, default: 2_592_000, in: 1...31_536_000, unit: " s",
        usedBy: #"store, dispatch"#,
        #"the longest lifetime a notification may be sent with (`ttl`), seconds"#)

    /// `SECUREPUSH_MAX_PAYLOAD_BYTES`.
    public static let maxPayloadBytes = IntegerSetting(
        #"SECUREPUSH_MAX_PAYLOAD_BYTES"#, group: .shared, default: 65_536, in: 1...(16 << 20),
        usedBy: #"store, dispatch"#,
        #"largest payload (UTF-8 bytes)"#)

    /// `SECUREPUSH_STORE_PURGE_INTERVAL`.
    public static let storePurgeInterval = IntegerSetting(
        #"SECUREPUSH_STORE_PURGE_INTERVAL"#, group: .store, default: 60, in: 1...86_400, unit: " s", usedBy: #"store"#,
        #"how often expired notifications are purged, seconds"#)

    /// `SECUREPUSH_PROOFS_PER_DEVICE`.
    public static let proofsPerDevice = IntegerSetting(
        #"SECUREPUSH_PROOFS_PER_DEVICE"#, group: .store, default: 120, in: 1...100_000, usedBy: #"store"#,
        #"device proofs one device may have accepted within 2 minutes; beyond it `-32029` `{quota: "proofsPerDevice"}` for that device only. Counted per process on SQLite, across all replicas on PostgreSQL"#
    )

    /// `SECUREPUSH_STORE_PROOF_RATE_LIMIT`.
    public static let storeProofRateLimit = IntegerSetting(
        #"SECUREPUSH_STORE_PROOF_RATE_LIMIT"#, group: .store, default: 600, in: 1...1_000_000, usedBy: #"store"#,
        #"fetches with a device proof one client address may make per minute (IPv6 by /64), valid or not; beyond it `-32029` `{quota: "proofsPerAddress"}` for that address only. Counted per process on SQLite, across all replicas on PostgreSQL"#
    )

    /// `SECUREPUSH_DISPATCH_KEEPALIVE`.
    public static let dispatchKeepalive = IntegerSetting(
        #"SECUREPUSH_DISPATCH_KEEPALIVE"#, group: .dispatch, default: 15, in: 1...3_600, unit: " s",
        usedBy: #"dispatch"#,
        #"seconds between keepalive comments on direct event streams (written from memory: an idle stream costs no database work)"#
    )

    /// `SECUREPUSH_DISPATCH_EXPIRY_INTERVAL`.
    public static let dispatchExpiryInterval = IntegerSetting(
        #"SECUREPUSH_DISPATCH_EXPIRY_INTERVAL"#, group: .dispatch, default: 60, in: 1...86_400, unit: " s",
        usedBy: #"dispatch"#,
        #"how often expired deliveries are marked and old sends purged, seconds"#)

    /// `SECUREPUSH_IDEMPOTENCY_TIMEOUT`.
    public static let idempotencyTimeout = IntegerSetting(
        #"SECUREPUSH_IDEMPOTENCY_TIMEOUT"#, group: .dispatch, default: 120, in: 1...86_400, unit: " s",
        usedBy: #"dispatch"#,
        #"seconds before a stuck `push.send`'s idempotency key may be taken over"#)

    /// `SECUREPUSH_MAX_SCHEDULE`.
    public static let maxSchedule = IntegerSetting(
        #"SECUREPUSH_MAX_SCHEDULE"#, group: .dispatch, default: 604_800, in: 1...2_592_000, unit: " s",
        usedBy: #"dispatch"#,
        #"furthest ahead a `push.send` `sendAt` may be, seconds (beyond: `-32602` naming `sendAt`)"#)

    /// `SECUREPUSH_AUDIT_CHECKPOINT_ENTRIES`.
    public static let auditCheckpointEntries = IntegerSetting(
        #"SECUREPUSH_AUDIT_CHECKPOINT_ENTRIES"#, group: .shared, default: 1_000, in: 1...1_000_000, usedBy: #"all"#,
        #"a signed audit checkpoint after this many entries of a chain (or `SECUREPUSH_AUDIT_CHECKPOINT_SECONDS`, whichever comes first; see [docs/compliance.md](compliance.md))"#
    )

    /// `SECUREPUSH_AUDIT_CHECKPOINT_SECONDS`.
    public static let auditCheckpointSeconds = IntegerSetting(
        #"SECUREPUSH_AUDIT_CHECKPOINT_SECONDS"#, group: .shared, default: 60, in: 1...3_600, unit: " s",
        usedBy: #"all"#,
        #"the longest an audit entry stays unsigned: a checkpoint after this many seconds with entries not yet covered"#
    )

    /// `SECUREPUSH_RETAIN_DELIVERIES`.
    public static let retainDeliveries = IntegerSetting(
        #"SECUREPUSH_RETAIN_DELIVERIES"#, group: .dispatch, default: 86_400, in: 0...31_536_000, unit: " s",
        usedBy: #"dispatch"#,
        #"seconds a send's record and its delivery records are kept after the notification expired (`push.status` answers until then); purged every `SECUREPUSH_DISPATCH_EXPIRY_INTERVAL`"#
    )

    /// `SECUREPUSH_RETAIN_IDEMPOTENCY_KEYS`.
    public static let retainIdempotencyKeys = IntegerSetting(
        #"SECUREPUSH_RETAIN_IDEMPOTENCY_KEYS"#, group: .dispatch, default: 0, in: 0...31_536_000, unit: " s",
        usedBy: #"dispatch"#,
        #"seconds a `push.send` idempotency key is kept after it was first used; `0` keeps today's rule: a finished send's key as long as its record (`SECUREPUSH_RETAIN_DELIVERIES`), one that never finished (a crash mid-send) a day"#
    )

    /// `SECUREPUSH_RETAIN_RECEIPTS`.
    public static let retainReceipts = IntegerSetting(
        #"SECUREPUSH_RETAIN_RECEIPTS"#, group: .store, default: 86_400, in: 0...31_536_000, unit: " s",
        usedBy: #"store"#,
        #"seconds a fetch receipt is kept after its notification expired (`push.status` shows `fetchedAt` until then); purged every `SECUREPUSH_STORE_PURGE_INTERVAL`"#
    )

    /// `SECUREPUSH_RETAIN_REVOKED_SESSIONS`.
    public static let retainRevokedSessions = IntegerSetting(
        #"SECUREPUSH_RETAIN_REVOKED_SESSIONS"#, group: .auth, default: 2_592_000, in: 900...31_536_000, unit: " s",
        usedBy: #"auth"#,
        #"seconds a signed-out or revoked session (and its spent refresh tokens) is kept after it was revoked (at least an access token's lifetime: `auth.revokedSessions` reads them); an unrevoked one is kept until its refresh tokens expire"#
    )

    /// `SECUREPUSH_RETAIN_AUDIT`.
    public static let retainAudit = IntegerSetting(
        #"SECUREPUSH_RETAIN_AUDIT"#, group: .shared, default: 0, in: 0...315_360_000, unit: " s",
        usedBy: #"all"#,
        #"seconds audit entries are kept; `0` keeps them forever. Older entries are cut from their chains by a signed `audit.retention.cut` entry, so `securepush audit verify` still passes (see [docs/compliance.md](compliance.md#retention))"#
    )

    /// `SECUREPUSH_ERASURE_SIGNIN_MAX_AGE`.
    public static let erasureSignInMaxAge = IntegerSetting(
        #"SECUREPUSH_ERASURE_SIGNIN_MAX_AGE"#, group: .auth, default: 300, in: 30...86_400, unit: " s",
        usedBy: #"auth"#,
        #"how recent a user's password sign-in (`auth_time`) must be for them to erase their own account with `users.delete` (older: `-32003` with `data {reason: "signInRequired"}`)"#
    )

    /// `SECUREPUSH_WEBHOOK_SECRET_OVERLAP`.
    public static let webhookSecretOverlap = IntegerSetting(
        #"SECUREPUSH_WEBHOOK_SECRET_OVERLAP"#, group: .dispatch, default: 86_400, in: 0...2_592_000, unit: " s",
        usedBy: #"dispatch"#,
        #"seconds a webhook's old secret keeps signing beside the new one after `webhooks.rotateSecret` (both signatures are sent meanwhile)"#
    )

    /// `SECUREPUSH_WEBHOOK_RETENTION`.
    public static let webhookRetention = IntegerSetting(
        #"SECUREPUSH_WEBHOOK_RETENTION"#, group: .dispatch, default: 259_200, in: 3_600...7_776_000, unit: " s",
        usedBy: #"dispatch"#,
        #"seconds webhook events are kept (for `webhooks.replay`), delivered or not"#)

    /// `SECUREPUSH_WEBHOOK_MAX_ATTEMPTS`.
    public static let webhookMaxAttempts = IntegerSetting(
        #"SECUREPUSH_WEBHOOK_MAX_ATTEMPTS"#, group: .dispatch, default: 10, in: 1...100, usedBy: #"dispatch"#,
        #"attempts to deliver one webhook event (exponential backoff from 5 s, at most 1 h apart) before it is given up"#
    )

    /// `SECUREPUSH_WEBHOOK_DISABLE_AFTER`.
    public static let webhookDisableAfter = IntegerSetting(
        #"SECUREPUSH_WEBHOOK_DISABLE_AFTER"#, group: .dispatch, default: 86_400, in: 1...2_592_000, unit: " s",
        usedBy: #"dispatch"#,
        #"seconds of nothing but failed attempts after which a webhook endpoint is disabled (logged as `webhooks.endpoint.disabled`, counted in `securepush_webhook_endpoints_disabled_total`); `webhooks.test` enables it again"#
    )

    /// `SECUREPUSH_WEBHOOK_ALLOWED_HOSTS`.
    public static let webhookAllowedHosts = TextSetting(
        #"SECUREPUSH_WEBHOOK_ALLOWED_HOSTS"#, group: .dispatch, default: nil, usedBy: #"dispatch"#,
        #"comma-separated hosts (and their subdomains) webhook URLs may name; required in production. Unset in development: any public host. Loopback, private and link-local addresses, and `http://` (development only), are allowed only for listed hosts"#
    )

    /// `SECUREPUSH_REPLICA_LEASE`.
    public static let replicaLease = IntegerSetting(
        #"SECUREPUSH_REPLICA_LEASE"#, group: .dispatch, default: 10, in: 1...3_600, unit: " s",
        usedBy: #"dispatch (PostgreSQL)"#,
        #"seconds a replica's lease outlives its last renewal (every fifth of it): the longest a retry waits for a send that a killed replica left in progress"#
    )

    /// `SECUREPUSH_DISPATCH_SWEEP_INTERVAL`.
    public static let dispatchSweepInterval = IntegerSetting(
        #"SECUREPUSH_DISPATCH_SWEEP_INTERVAL"#, group: .dispatch, default: 10, in: 1...3_600, unit: " s",
        usedBy: #"dispatch"#,
        #"seconds between the one sweep (for the whole service) that wakes streams whose device has queued ids whose wake-up was lost, and ends the streams of signed-out sessions (`auth.revokedSessions`)"#
    )

    /// `SECUREPUSH_APPS_REFRESH_INTERVAL`.
    public static let appsRefreshInterval = IntegerSetting(
        #"SECUREPUSH_APPS_REFRESH_INTERVAL"#, group: .dispatch, default: 5, in: 1...3_600, unit: " s",
        usedBy: #"dispatch"#,
        #"seconds between two reads of the apps' revisions: an app created, changed or deleted (by `securepush apps` or on another replica) is served within this bound, and a replaced credential is no longer used after it"#
    )

    /// `SECUREPUSH_DEFAULT_APP`.
    public static let defaultApp = TextSetting(
        #"SECUREPUSH_DEFAULT_APP"#, group: .dispatch, default: #"default"#, usedBy: #"dispatch"#,
        #"the app an omitted `appId` means (`devices.register`, `push.send`) and the one app of a client created without `--app`; `default` is the app of the `SECUREPUSH_APNS_*`, `_FCM_*`, `_WNS_*` and `_VAPID_*` variables (see [docs/operations.md](operations.md#operations-apps))"#
    )

    /// `SECUREPUSH_APNS_PING_INTERVAL`.
    public static let apnsPingInterval = IntegerSetting(
        #"SECUREPUSH_APNS_PING_INTERVAL"#, group: .providers, default: 60, in: 0...3_600, unit: " s",
        usedBy: #"dispatch"#,
        #"seconds between HTTP/2 PINGs on the APNs connection; 0 turns them off"#)

    /// `SECUREPUSH_DELIVERY_CONCURRENCY`.
    public static let deliveryConcurrency = IntegerSetting(
        #"SECUREPUSH_DELIVERY_CONCURRENCY"#, group: .dispatch, default: 64, in: 1...10_000, usedBy: #"dispatch"#,
        #"provider attempts in flight per provider (and claim batch); `SECUREPUSH_APNS_CONCURRENCY`, `…_FCM_…`, `…_WNS_…`, `…_WEBPUSH_…` override per platform"#
    )

    /// `SECUREPUSH_DELIVERY_BACKOFF_BASE`.
    public static let deliveryBackoffBase = IntegerSetting(
        #"SECUREPUSH_DELIVERY_BACKOFF_BASE"#, group: .dispatch, default: 1, in: 1...3_600, unit: " s",
        usedBy: #"dispatch"#,
        #"the first retry's backoff, doubled each attempt (with full jitter), seconds"#)

    /// `SECUREPUSH_DELIVERY_BACKOFF_MAX`.
    public static let deliveryBackoffMax = IntegerSetting(
        #"SECUREPUSH_DELIVERY_BACKOFF_MAX"#, group: .dispatch, default: 300, in: 1...86_400, unit: " s",
        usedBy: #"dispatch"#,
        #"the longest retry backoff, seconds"#)

    /// `SECUREPUSH_DELIVERY_LEASE_TIMEOUT`.
    public static let deliveryLeaseTimeout = IntegerSetting(
        #"SECUREPUSH_DELIVERY_LEASE_TIMEOUT"#, group: .dispatch, default: 60, in: 3...3_600, unit: " s",
        usedBy: #"dispatch"#,
        #"how long a crashed worker's job stays claimed before another takes it, seconds"#)

    /// `SECUREPUSH_DELIVERY_IDLE_INTERVAL`.
    public static let deliveryIdleInterval = IntegerSetting(
        #"SECUREPUSH_DELIVERY_IDLE_INTERVAL"#, group: .dispatch, default: 30, in: 1...3_600, unit: " s",
        usedBy: #"dispatch"#,
        #"longest a worker sleeps without checking for due jobs, seconds"#)

    /// `SECUREPUSH_DELIVERY_MAX_ATTEMPTS`.
    public static let deliveryMaxAttempts = IntegerSetting(
        #"SECUREPUSH_DELIVERY_MAX_ATTEMPTS"#, group: .dispatch, default: 10, in: 1...1_000, usedBy: #"dispatch"#,
        #"attempts before a delivery ends `failed`"#)

    /// `SECUREPUSH_ENV`.
    public static let mode = ChoiceSetting(
        #"SECUREPUSH_ENV"#, group: .shared, default: "development", names: ["development", "production"],
        usedBy: #"all"#, note: #"a misspelt 'production' would otherwise run with development defaults"#,
        #"`production` refuses unsafe settings: cleartext on a non-loopback address, `http://` peers to another host, secrets under 32 bytes or published defaults, PostgreSQL without `sslmode=require`, Web Push without an allow-list, `*` or non-loopback `http://` CORS origins, a generated signing key, a missing bootstrap client for `up`, every address trusted as a proxy, `/metrics` on a public port, sign-in limits off (see [docs/security.md](security.md#production-mode))"#
    )

    /// `SECUREPUSH_METRICS`.
    public static let metrics = ChoiceSetting(
        #"SECUREPUSH_METRICS"#, group: .shared, default: "on", names: ["on", "off"],
        usedBy: #"all (and `securepush up`)"#,
        #"`off`: the service records no metrics and serves no `GET /metrics` (404; `SECUREPUSH_METRICS_PORT` is not opened), so it does no metric work per request. On, the cost on the fetch path is measured in [docs/benchmarks.md](benchmarks.md#cost-of-metrics-on-the-fetch-path)"#
    )

    /// `SECUREPUSH_FORWARDED_HEADER`.
    public static let forwardedHeader = ChoiceSetting(
        #"SECUREPUSH_FORWARDED_HEADER"#, group: .shared, default: "x-forwarded-for",
        names: ["x-forwarded-for", "forwarded"], usedBy: #"all"#, note: #"the header your proxy writes"#,
        #"the one header read from trusted proxies (the other is ignored)"#)

    /// `SECUREPUSH_LOG_FORMAT`.
    public static let logFormat = ChoiceSetting(
        #"SECUREPUSH_LOG_FORMAT"#, group: .shared, default: "text", names: ["text", "json"],
        usedBy: #"all (and `securepush up`)"#,
        #"`json`: one JSON object per line (`timestamp`, `level`, `logger`, `message`, then the metadata keys, `trace_id`/`span_id` when a span is active); see [docs/operations.md](operations.md#operations-logs)"#
    )

    /// `SECUREPUSH_SQLITE_SYNCHRONOUS`.
    public static let sqliteSynchronous = ChoiceSetting(
        #"SECUREPUSH_SQLITE_SYNCHRONOUS"#, group: .shared, default: "normal", names: ["normal", "full"],
        usedBy: #"all (SQLite)"#,
        #"`normal`: commits are flushed to disk at checkpoints (SQLite's recommendation for WAL; survives a service crash, the last commits can be lost on a power cut or kernel crash); `full`: every commit is flushed before the call returns (survives a power cut; one `fsync` per write, see [docs/benchmarks.md](benchmarks.md))"#
    )

    /// `SECUREPUSH_APNS_MODE`.
    public static let apnsMode = ChoiceSetting(
        #"SECUREPUSH_APNS_MODE"#, group: .providers, default: "alert", names: ["alert", "background"],
        usedBy: #"dispatch"#,
        #"`alert`: a `mutable-content` alert with the fallback text, for a Notification Service Extension; `background`: a silent `content-available` push; a device may choose its own with `apnsMode` in `devices.register`"#
    )

    /// `SECUREPUSH_APNS_ENVIRONMENT`.
    public static let apnsEnvironment = ChoiceSetting(
        #"SECUREPUSH_APNS_ENVIRONMENT"#, group: .providers, default: "production", names: ["production", "sandbox"],
        usedBy: #"dispatch"#,
        #"`sandbox` for development builds of the app, `production` for store builds"#)

    /// `SECUREPUSH_WEBPUSH_URGENCY`.
    public static let webPushUrgency = ChoiceSetting(
        #"SECUREPUSH_WEBPUSH_URGENCY"#, group: .providers, default: "high",
        names: ["very-low", "low", "normal", "high"], usedBy: #"dispatch"#,
        #"the `Urgency` header of Web Push requests"#)

    /// `SECUREPUSH_HOST`.
    public static let host = TextSetting(
        #"SECUREPUSH_HOST"#, group: .shared, default: #"127.0.0.1"#, usedBy: #"all"#,
        #"address to bind (`0.0.0.0` in containers)"#)

    /// `SECUREPUSH_DATA_DIR`.
    public static let dataDirectory = TextSetting(
        #"SECUREPUSH_DATA_DIR"#, group: .shared, default: #"./.securepush"#, usedBy: #"all"#,
        #"SQLite files `auth.sqlite`, `store.sqlite`, `dispatch.sqlite`"#)

    /// `SECUREPUSH_AUTH_URL`.
    public static let authURL = TextSetting(
        #"SECUREPUSH_AUTH_URL"#, group: .shared, default: #"http://127.0.0.1:8081"#, usedBy: #"store, dispatch, CLI"#,
        #"where auth is"#)

    /// `SECUREPUSH_STORE_URL`.
    public static let storeURL = TextSetting(
        #"SECUREPUSH_STORE_URL"#, group: .shared, default: #"http://127.0.0.1:8082"#, usedBy: #"auth, dispatch, CLI"#,
        #"where notification-store is"#)

    /// `SECUREPUSH_DISPATCH_URL`.
    public static let dispatchURL = TextSetting(
        #"SECUREPUSH_DISPATCH_URL"#, group: .shared, default: #"http://127.0.0.1:8083"#, usedBy: #"auth, CLI"#,
        #"where push-dispatch is (auth calls it to erase a user, `users.delete`)"#)

    /// `SECUREPUSH_INBOX_AUTH_URL`.
    public static let inboxAuthURL = TextSetting(
        #"SECUREPUSH_INBOX_AUTH_URL"#, group: .dispatch, default: nil, usedBy: #"dispatch"#,
        #"auth's URL as browsers reach it, given to the web inbox (`/inbox/config.json`) and allowed by its Content-Security-Policy; unset: `SECUREPUSH_AUTH_URL`"#
    )

    /// `SECUREPUSH_INBOX_STORE_URL`.
    public static let inboxStoreURL = TextSetting(
        #"SECUREPUSH_INBOX_STORE_URL"#, group: .dispatch, default: nil, usedBy: #"dispatch"#,
        #"notification-store's URL as browsers reach it, for the web inbox; unset: `SECUREPUSH_STORE_URL`"#)

    /// `SECUREPUSH_INBOX_DISPATCH_URL`.
    public static let inboxDispatchURL = TextSetting(
        #"SECUREPUSH_INBOX_DISPATCH_URL"#, group: .dispatch, default: nil, usedBy: #"dispatch"#,
        #"push-dispatch's URL as browsers reach it, for the web inbox; unset: the page's own origin"#)

    /// `SECUREPUSH_FCM_URL`.
    public static let fcmURL = TextSetting(
        #"SECUREPUSH_FCM_URL"#, group: .providers, default: #"https://fcm.googleapis.com"#, usedBy: #"dispatch"#,
        #"another FCM endpoint (a test server)"#)

    /// `SECUREPUSH_WNS_TOKEN_URL`.
    public static let wnsTokenURL = TextSetting(
        #"SECUREPUSH_WNS_TOKEN_URL"#, group: .providers, default: #"https://login.live.com/accesstoken.srf"#,
        usedBy: #"dispatch"#,
        #"where WNS access tokens are asked for"#)

    /// `SECUREPUSH_WNS_SCOPE`.
    public static let wnsScope = TextSetting(
        #"SECUREPUSH_WNS_SCOPE"#, group: .providers, default: #"notify.windows.com"#, usedBy: #"dispatch"#,
        #"the scope asked for"#)

    /// `SECUREPUSH_APNS_ALERT_TITLE`.
    public static let apnsAlertTitle = TextSetting(
        #"SECUREPUSH_APNS_ALERT_TITLE"#, group: .providers, default: #"New message"#, usedBy: #"dispatch"#,
        #"the fallback title of alert pushes, shown when the app cannot fetch the payload (never the payload itself)"#)

    /// `SECUREPUSH_APNS_ALERT_BODY`.
    public static let apnsAlertBody = TextSetting(
        #"SECUREPUSH_APNS_ALERT_BODY"#, group: .providers, default: #"You have a new secure message"#,
        usedBy: #"dispatch"#,
        #"the fallback body of alert pushes"#)

    /// `SECUREPUSH_BCRYPT_COST`.
    public static let bcryptCost = IntegerSetting(
        #"SECUREPUSH_BCRYPT_COST"#, group: .auth, default: 12, in: 10...16, usedBy: #"auth"#,
        #"bcrypt cost"#)

    /// `SECUREPUSH_AUTH_PORT`.
    public static let authPort = IntegerSetting(
        #"SECUREPUSH_AUTH_PORT"#, group: .shared, default: 8081, in: 0...65_535, usedBy: #"each"#,
        #"listening port"#)

    /// `SECUREPUSH_STORE_PORT`.
    public static let storePort = IntegerSetting(
        #"SECUREPUSH_STORE_PORT"#, group: .shared, default: 8082, in: 0...65_535, usedBy: #"each"#,
        #"listening port"#)

    /// `SECUREPUSH_DISPATCH_PORT`.
    public static let dispatchPort = IntegerSetting(
        #"SECUREPUSH_DISPATCH_PORT"#, group: .shared, default: 8083, in: 0...65_535, usedBy: #"each"#,
        #"listening port"#)

    /// `SECUREPUSH_SELF_REGISTRATION`, read with ``ServiceEnvironment/flag(_:)``.
    public static let selfRegistration = ChoiceSetting(
        #"SECUREPUSH_SELF_REGISTRATION"#, group: .auth, default: "true", names: ChoiceSetting.flagNames,
        usedBy: #"auth"#,
        #"`false` closes `auth.register` (`-32003`); accounts are then made with `securepush users create`"#)

    /// All settings, in the order `docs/configuration.md` lists them within each group.
    public static let all: [Setting] = [
        mode.setting,
        host.setting,
        authPort.setting,
        storePort.setting,
        dispatchPort.setting,
        dataDirectory.setting,
        Setting(
            #"SECUREPUSH_DATABASE_URL"#, group: .shared, default: #"unset"#, usedBy: #"all (not `securepush up`)"#,
            #"`postgres://…`: PostgreSQL instead of SQLite, for replicas (see [Scaling out](deployment.md#scaling-out-on-postgresql))"#
        ),
        Setting(
            #"SECUREPUSH_STORE_KEY_FILE"#, group: .shared,
            default: #"`<data dir>/store-keys`, generated (0600) on first start; required in production"#,
            usedBy: #"store, `securepush store-keys rotate`"#,
            #"the AES-256 keys payloads are encrypted at rest under: one `<key id> <base64 of 32 bytes>` line per key, `#` comments; the last key encrypts, every key listed still decrypts. A bad file stops the store, naming the line. Every replica must read the same file (see [docs/security.md](security.md#encryption-at-rest))"#
        ),
        sqliteSynchronous.setting,
        Setting(
            #"GLIBC_TUNABLES"#, group: .runtime, default: #"unset"#, usedBy: #"all"#,
            #"glibc's own variable. Each service sets malloc to keep up to 64 MB free per heap instead of giving memory back at 128 kB (`MallocTuning`; ~20% more `push.send`/s here, see [docs/benchmarks.md](benchmarks.md)); any `glibc.malloc.*` tunable set here replaces those settings"#
        ),
        Setting(
            #"SECUREPUSH_AUDIT_KEY_FILE"#, group: .shared,
            default: #"`<data dir>/audit-signing-key.pem`, generated (0600) on first start; required in production"#,
            usedBy: #"all, `securepush audit verify`"#,
            #"the ECDSA P-256 private key (PEM) that signs the audit trail's checkpoints (`securepush audit keygen` makes one); every replica of every service may share it. See [docs/compliance.md](compliance.md)"#
        ),
        Setting(
            #"SECUREPUSH_AUDIT_KEY"#, group: .shared, default: #"unset"#,
            usedBy: #"all, `securepush audit verify`"#,
            #"the audit checkpoint key as a PEM file or a `pkcs11:` URI (RFC 7512, e.g. `pkcs11:token=securepush;object=audit`): in a module the key signs there and never leaves it. Set it or `SECUREPUSH_AUDIT_KEY_FILE`, not both. See [docs/compliance.md](compliance.md#where-the-keys-live)"#
        ),
        Setting(
            #"SECUREPUSH_PKCS11_MODULE"#, group: .shared, default: #"unset"#,
            usedBy: #"all, `securepush hsm`, `securepush store-keys`, `securepush apps`"#,
            #"path of the PKCS#11 module (an HSM's library; SoftHSM2: `/usr/lib/softhsm/libsofthsm2.so`) that keys named by `pkcs11:` URIs are in; loaded once per process. A module that cannot be loaded refuses the start naming this variable"#
        ),
        Setting(
            #"SECUREPUSH_PKCS11_PIN_FILE"#, group: .shared, default: #"unset"#,
            usedBy: #"all, `securepush hsm`, `securepush store-keys`, `securepush apps`"#,
            #"file holding the token user's PIN (one line); a `pin-source` in the URI wins. A missing file or a PIN the token refuses (incorrect, locked) refuses the start naming this variable"#
        ),
        Setting(
            #"SECUREPUSH_STORE_KEY_WRAPPING_KEY"#, group: .shared, default: #"unset"#,
            usedBy: #"store, `securepush store-keys rotate`"#,
            #"a `pkcs11:` URI naming an AES key in the module that wraps the store key file's keys (envelope encryption: the file holds `<id> wrapped:…` lines, unwrapped in memory at start). Keys found in clear are wrapped in place at start"#
        ),
        Setting(
            #"SECUREPUSH_AUDIT_CHECKPOINT_DIR"#, group: .shared,
            default: #"`<data dir>/audit-checkpoints`; required in production"#,
            usedBy: #"all, `securepush audit verify`"#,
            #"where signed checkpoints are also written, outside the database (`<service>/<chain>.jsonl`), so that a truncated trail is detected: mount it from elsewhere (another volume, append-only storage)"#
        ),
        auditCheckpointEntries.setting,
        auditCheckpointSeconds.setting,
        retainAudit.setting,
        retainDeliveries.setting,
        retainIdempotencyKeys.setting,
        retainReceipts.setting,
        retainRevokedSessions.setting,
        idempotencyTimeout.setting,
        maxSchedule.setting,
        webhookSecretOverlap.setting,
        webhookRetention.setting,
        webhookMaxAttempts.setting,
        webhookDisableAfter.setting,
        webhookAllowedHosts.setting,
        proofsPerDevice.setting,
        storeProofRateLimit.setting,
        replicaLease.setting,
        Setting(
            #"SECUREPUSH_TLS_CERT_FILE"#, group: .shared, default: #"unset"#, usedBy: #"all"#,
            #"PEM certificate chain and key: TLS with ALPN `h2` + `http/1.1`; unset: cleartext HTTP/2 (prior knowledge) and HTTP/1.1"#
        ),
        Setting(
            #"SECUREPUSH_TLS_KEY_FILE"#, group: .shared, default: #"unset"#, usedBy: #"all"#,
            #"PEM certificate chain and key: TLS with ALPN `h2` + `http/1.1`; unset: cleartext HTTP/2 (prior knowledge) and HTTP/1.1"#
        ),
        Setting(
            #"SECUREPUSH_CA_FILE"#, group: .shared, default: #"unset"#, usedBy: #"store, dispatch, CLI"#,
            #"PEM CA to trust when calling peers over `https` (private CA)"#),
        authURL.setting,
        storeURL.setting,
        inboxAuthURL.setting,
        inboxStoreURL.setting,
        inboxDispatchURL.setting,
        dispatchURL.setting,
        maxBodyBytes.setting,
        maxBatch.setting,
        idleTimeout.setting,
        handshakeTimeout.setting,
        requestTimeout.setting,
        Setting(
            #"SECUREPUSH_MAX_CONNECTION_BUFFER_BYTES"#, group: .shared, default: #"2 × `SECUREPUSH_MAX_BODY_BYTES`"#,
            usedBy: #"all"#,
            #"request body bytes one connection may buffer while they arrive; past it flow control makes the client wait (at least one body)"#
        ),
        maxConnections.setting,
        maxConnectionsPerAddress.setting,
        streamingHeaderTableBytes.setting,
        shutdownTimeout.setting,
        Setting(
            #"SECUREPUSH_LOG_LEVEL"#, group: .shared,
            default: #"`info` (`notice` for `securepush up`, `warning` for the other CLI commands)"#, usedBy: #"all"#,
            #"`trace` … `critical`"#),
        logFormat.setting,
        Setting(
            #"OTEL_EXPORTER_OTLP_ENDPOINT"#, group: .runtime, default: #"unset (tracing off, no cost)"#,
            usedBy: #"all (and `securepush up`)"#,
            #"turns OpenTelemetry tracing on: spans are exported over OTLP/HTTP (protobuf) to this collector, e.g. `http://jaeger:4318`; see [docs/operations.md](operations.md#operations-tracing)"#
        ),
        Setting(
            #"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"#, group: .runtime, default: #"unset (tracing off, no cost)"#,
            usedBy: #"all (and `securepush up`)"#,
            #"turns OpenTelemetry tracing on: spans are exported over OTLP/HTTP (protobuf) to this collector, e.g. `http://jaeger:4318`; see [docs/operations.md](operations.md#operations-tracing)"#
        ),
        Setting(
            #"OTEL_TRACES_EXPORTER"#, group: .runtime, default: #"unset"#, usedBy: #"all (and `up`)"#,
            #"`otlp` turns tracing on (to `http://localhost:4318` without an endpoint), `none` keeps it off; anything else is refused at start"#
        ),
        Setting(
            #"OTEL_SERVICE_NAME"#, group: .runtime,
            default: #"the service's name (`auth`, `notification-store`, `push-dispatch`; `securepush` for `up`)"#,
            usedBy: #"all (and `up`)"#,
            #"`service.name` of exported spans; the other standard variables apply too: `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_EXPORTER_OTLP_HEADERS`/`_TIMEOUT`/`_CERTIFICATE`, `OTEL_TRACES_SAMPLER`/`_ARG` (default `parentbased_always_on`), `OTEL_PROPAGATORS`, `OTEL_BSP_*`, `OTEL_SDK_DISABLED`"#
        ),
        Setting(
            #"SECUREPUSH_BOOTSTRAP_CLIENT_ID"#, group: .shared, default: #"unset"#, usedBy: #"auth, CLI"#,
            #"created or updated at start as a backend client with scopes `push:send` and `webhooks:manage`"#),
        Setting(
            #"SECUREPUSH_BOOTSTRAP_CLIENT_SECRET"#, group: .shared, default: #"unset"#, usedBy: #"auth, CLI"#,
            isSecret: true,
            #"created or updated at start as a backend client with scopes `push:send` and `webhooks:manage`"#),
        Setting(
            #"SECUREPUSH_DISPATCH_CLIENT_ID"#, group: .shared, default: #"unset"#, usedBy: #"auth, dispatch"#,
            #"push-dispatch's own client: auth provisions it with scopes `store:write`, `sessions:read`, `users:read` and `audit:keys`; dispatch uses it to call `store.put`, `auth.revokedSessions`, `auth.lookupUser` and `auth.auditKeys` (`up` generates one)"#
        ),
        Setting(
            #"SECUREPUSH_DISPATCH_CLIENT_SECRET"#, group: .shared, default: #"unset"#, usedBy: #"auth, dispatch"#,
            isSecret: true,
            #"push-dispatch's own client: auth provisions it with scopes `store:write`, `sessions:read`, `users:read` and `audit:keys`; dispatch uses it to call `store.put`, `auth.revokedSessions`, `auth.lookupUser` and `auth.auditKeys` (`up` generates one)"#
        ),
        Setting(
            #"SECUREPUSH_STORE_CLIENT_ID"#, group: .shared, default: #"unset"#, usedBy: #"auth, store"#,
            #"notification-store's own client: auth provisions it with scope `audit:keys`; the store calls `auth.auditKeys` with it for the keys its audit trail pseudonymises people with (required in production; `up` generates one; unset in development, the store uses a key of its own per day)"#
        ),
        Setting(
            #"SECUREPUSH_STORE_CLIENT_SECRET"#, group: .shared, default: #"unset"#, usedBy: #"auth, store"#,
            isSecret: true,
            #"notification-store's own client's secret (see `SECUREPUSH_STORE_CLIENT_ID`)"#
        ),
        Setting(
            #"SECUREPUSH_STORE_CLIENT_SECRET_FILE"#, group: .shared, default: #"unset"#, usedBy: #"auth, store"#,
            #"read the secret from this file instead (mounted secrets; compose generates them); the variable wins when both are set"#
        ),
        Setting(
            #"SECUREPUSH_BOOTSTRAP_CLIENT_SECRET_FILE"#, group: .shared, default: #"unset"#, usedBy: #"auth, dispatch"#,
            #"read the secret from this file instead (mounted secrets; compose generates them); the variable wins when both are set"#
        ),
        Setting(
            #"SECUREPUSH_DISPATCH_CLIENT_SECRET_FILE"#, group: .shared, default: #"unset"#, usedBy: #"auth, dispatch"#,
            #"read the secret from this file instead (mounted secrets; compose generates them); the variable wins when both are set"#
        ),
        Setting(
            #"SECUREPUSH_AUTH_SIGNING_KEY"#, group: .auth, default: #"unset"#, usedBy: #"auth"#,
            #"the token signing key as a PEM file or a `pkcs11:` URI (e.g. `pkcs11:token=securepush;object=auth-signing`): in a module, tokens are signed there (`CKM_ECDSA`) and the key never leaves it; a module failing at run time is `-32050` naming `hsm`. Set it or `SECUREPUSH_AUTH_SIGNING_KEY_FILE`, not both"#
        ),
        Setting(
            #"SECUREPUSH_AUTH_SIGNING_KEY_FILE"#, group: .auth, default: #"unset"#, usedBy: #"auth"#,
            #"ES256 private key (PEM); unset: one is generated on first start and kept in the database (refused in production)"#
        ),
        accessTokenTTL.setting,
        refreshTokenTTL.setting,
        bcryptCost.setting,
        loginMaxFailures.setting,
        loginFailureWindow.setting,
        authRateLimit.setting,
        bcryptChecksPerAddress.setting,
        bcryptQueue.setting,
        bcryptPerAddress.setting,
        erasureSignInMaxAge.setting,
        selfRegistration.setting,
        Setting(
            #"SECUREPUSH_TRUSTED_PROXIES"#, group: .shared, default: #"unset"#, usedBy: #"all"#,
            #"comma-separated CIDRs (IPv4/IPv6) of reverse proxies whose forwarding header names the client address; unset: the socket's peer is the client; `0.0.0.0/0` and `::/0` are refused in production"#
        ),
        forwardedHeader.setting,
        Setting(
            #"SECUREPUSH_CORS_ORIGINS"#, group: .shared,
            default:
                #"development: the web inbox's origins, `http://127.0.0.1:<dispatch port>` and `http://localhost:<dispatch port>`; production: none"#,
            usedBy: #"all"#,
            #"comma-separated browser origins (`https://app.example.com`) whose pages may call the service (CORS; see [docs/web.md](web.md)); `*` (any origin) and `http://` origins other than loopback are refused in production"#
        ),
        Setting(
            #"SECUREPUSH_PRODUCTION_ALLOW"#, group: .shared, default: #"unset"#, usedBy: #"all"#,
            #"production refusals the operator accepts: `public-metrics`, `no-auth-limits` (comma-separated)"#),
        Setting(
            #"SECUREPUSH_METRICS_PORT"#, group: .shared, default: #"unset"#, usedBy: #"all (not `securepush up`)"#,
            #"a second, plain HTTP/1.1 port (on `SECUREPUSH_HOST`) serving only `GET /metrics`, so metrics can stay private; unset: `GET /metrics` is served on the service port (see [docs/operations.md](operations.md)); production on a non-loopback address requires it (or metrics off)"#
        ),
        metrics.setting,
        maxPayloadBytes.setting,
        Setting(
            #"SECUREPUSH_DEFAULT_TTL"#, group: .shared, default: #"604800"#, usedBy: #"store, dispatch"#,
            #"the lifetime of a notification sent without `ttl`, seconds (at most `SECUREPUSH_MAX_TTL`; an app's own longest lifetime bounds it for that app's sends)"#
        ),
        maxTTL.setting,
        storePurgeInterval.setting,
        dispatchKeepalive.setting,
        dispatchSweepInterval.setting,
        appsRefreshInterval.setting,
        defaultApp.setting,
        Setting(
            #"SECUREPUSH_APPS_KEY_FILE"#, group: .dispatch,
            default:
                #"`<data dir>/apps-keys`, generated (0600) by the first `securepush apps create`; required in production and on PostgreSQL before an app is created"#,
            usedBy: #"dispatch, `securepush apps`"#,
            #"the AES-256 keys apps' provider credentials are encrypted at rest under, in the store key file's format; the last key encrypts, every key listed still decrypts (see [docs/operations.md](operations.md#operations-apps))"#
        ),
        Setting(
            #"SECUREPUSH_APPS_KEY_WRAPPING_KEY"#, group: .dispatch, default: #"unset"#,
            usedBy: #"dispatch, `securepush apps`"#,
            #"a `pkcs11:` URI naming an AES key in the module that wraps the apps key file's keys (which seal apps' credentials, VAPID keys included, and webhook secrets); keys found in clear are wrapped in place at start"#
        ),
        Setting(
            #"SECUREPUSH_MAX_DEVICES_PER_USER"#, group: .dispatch, default: #"20"#, usedBy: #"dispatch"#,
            #"devices one user may register (every row counts, active or not); one more is `-32029` with `data: {quota: "devicesPerUser", limit}`"#
        ),
        Setting(
            #"SECUREPUSH_MAX_STREAMS_PER_DEVICE"#, group: .dispatch, default: #"2"#, usedBy: #"dispatch"#,
            #"open event streams per device; a new one beyond it closes the device's oldest"#),
        dispatchExpiryInterval.setting,
        deliveryConcurrency.setting,
        deliveryMaxAttempts.setting,
        deliveryBackoffBase.setting,
        deliveryBackoffMax.setting,
        deliveryLeaseTimeout.setting,
        deliveryIdleInterval.setting,
        Setting(
            #"SECUREPUSH_CREDENTIALS"#, group: .cli, default: #"`~/.securepush/credentials.json`"#, usedBy: #"CLI"#,
            #"where `login` keeps the session (0600)"#),
        Setting(
            #"SECUREPUSH_CLIENT_ID"#, group: .cli, default: #"unset"#, usedBy: #"CLI"#,
            #"backend client for `send`, `status`, `demo --against-running`"#),
        Setting(
            #"SECUREPUSH_CLIENT_SECRET"#, group: .cli, default: #"unset"#, usedBy: #"CLI"#, isSecret: true,
            #"backend client for `send`, `status`, `demo --against-running`"#),

        Setting(
            #"SECUREPUSH_APNS_KEY_FILE"#, group: .providers, default: #"unset (APNs off)"#, usedBy: #"dispatch"#,
            #"the `.p8` token-signing key from Apple; with `SECUREPUSH_APNS_KEY_ID`, `SECUREPUSH_APNS_TEAM_ID` and `SECUREPUSH_APNS_TOPIC` it turns APNs on"#
        ),
        Setting(
            #"SECUREPUSH_APNS_KEY_ID"#, group: .providers, default: #"unset"#, usedBy: #"dispatch"#,
            #"the key's id (10 characters, from Apple's developer account)"#),
        Setting(
            #"SECUREPUSH_APNS_TEAM_ID"#, group: .providers, default: #"unset"#, usedBy: #"dispatch"#,
            #"the developer team's id"#),
        Setting(
            #"SECUREPUSH_APNS_TOPIC"#, group: .providers, default: #"unset"#, usedBy: #"dispatch"#,
            #"the app's bundle id; a wrong one makes APNs answer `DeviceTokenNotForTopic` (and deactivates the device)"#
        ),
        apnsEnvironment.setting,
        apnsMode.setting,
        apnsAlertTitle.setting,
        apnsAlertBody.setting,
        apnsPingInterval.setting,
        Setting(
            #"SECUREPUSH_APNS_URL"#, group: .providers, default: #"Apple's, by `SECUREPUSH_APNS_ENVIRONMENT`"#,
            usedBy: #"dispatch"#, #"another APNs endpoint (a test server)"#),
        Setting(
            #"SECUREPUSH_APNS_CA_FILE"#, group: .providers, default: #"unset (the system's roots)"#,
            usedBy: #"dispatch"#,
            #"PEM CA to trust for `SECUREPUSH_APNS_URL` (a private CA)"#),
        Setting(
            #"SECUREPUSH_APNS_CONCURRENCY"#, group: .providers, default: #"`SECUREPUSH_DELIVERY_CONCURRENCY`"#,
            usedBy: #"dispatch"#, #"APNs attempts in flight at once"#),
        Setting(
            #"SECUREPUSH_FCM_CREDENTIALS_FILE"#, group: .providers, default: #"unset (FCM off)"#, usedBy: #"dispatch"#,
            isSecret: true,
            #"the Firebase service account JSON (its `project_id` and `token_uri` are read from it); turns FCM on"#),
        Setting(
            #"SECUREPUSH_FCM_PROJECT_ID"#, group: .providers, default: #"the credentials file's"#, usedBy: #"dispatch"#,
            #"the Firebase project to send through"#),
        fcmURL.setting,
        Setting(
            #"SECUREPUSH_FCM_CA_FILE"#, group: .providers, default: #"unset (the system's roots)"#,
            usedBy: #"dispatch"#,
            #"PEM CA to trust for FCM and its token endpoint"#),
        Setting(
            #"SECUREPUSH_FCM_CONCURRENCY"#, group: .providers, default: #"`SECUREPUSH_DELIVERY_CONCURRENCY`"#,
            usedBy: #"dispatch"#, #"FCM attempts in flight at once"#),
        Setting(
            #"SECUREPUSH_WNS_CLIENT_ID"#, group: .providers, default: #"unset (WNS off)"#, usedBy: #"dispatch"#,
            #"the package SID (`ms-app://…`); with `SECUREPUSH_WNS_CLIENT_SECRET` it turns WNS on"#),
        Setting(
            #"SECUREPUSH_WNS_CLIENT_SECRET"#, group: .providers, default: #"unset"#, usedBy: #"dispatch"#,
            isSecret: true, #"the package's client secret"#),
        wnsTokenURL.setting,
        wnsScope.setting,
        Setting(
            #"SECUREPUSH_WNS_CA_FILE"#, group: .providers, default: #"unset (the system's roots)"#,
            usedBy: #"dispatch"#,
            #"PEM CA to trust for WNS"#),
        Setting(
            #"SECUREPUSH_WNS_ALLOW_ANY_HOST"#, group: .providers, default: #"unset"#, usedBy: #"dispatch"#,
            #"`1` accepts channel URIs on any host, not only `https` on `*.notify.windows.com` (sandboxes and tests; refused in production)"#
        ),
        Setting(
            #"SECUREPUSH_WNS_CONCURRENCY"#, group: .providers, default: #"`SECUREPUSH_DELIVERY_CONCURRENCY`"#,
            usedBy: #"dispatch"#, #"WNS attempts in flight at once"#),
        Setting(
            #"SECUREPUSH_VAPID_PRIVATE_KEY_FILE"#, group: .providers, default: #"unset (Web Push off)"#,
            usedBy: #"dispatch"#, #"the VAPID key (PEM, P-256); with `SECUREPUSH_VAPID_SUBJECT` it turns Web Push on"#),
        Setting(
            #"SECUREPUSH_VAPID_SUBJECT"#, group: .providers, default: #"unset"#, usedBy: #"dispatch"#,
            #"`mailto:` or `https:` contact the push services may use"#),
        Setting(
            #"SECUREPUSH_WEBPUSH_ALLOWED_HOSTS"#, group: .providers, default: #"unset (any public host)"#,
            usedBy: #"dispatch"#,
            #"comma-separated push service hosts a subscription's endpoint may name (required in production); loopback, private and link-local endpoints are contacted only when listed"#
        ),
        webPushUrgency.setting,
        Setting(
            #"SECUREPUSH_WEBPUSH_CA_FILE"#, group: .providers, default: #"unset (the system's roots)"#,
            usedBy: #"dispatch"#, #"PEM CA to trust for push services"#),
        Setting(
            #"SECUREPUSH_WEBPUSH_CONCURRENCY"#, group: .providers, default: #"`SECUREPUSH_DELIVERY_CONCURRENCY`"#,
            usedBy: #"dispatch"#, #"Web Push attempts in flight at once"#),
        Setting(
            #"SECUREPUSH_PASSWORD"#, group: .cli, default: #"unset (asked at the prompt)"#, usedBy: #"CLI"#,
            isSecret: true, #"the password for `register` and `login` when `--password` is not given"#),
        Setting(
            #"SECUREPUSH_CLIENT_SECRET_FILE"#, group: .cli, default: #"unset"#, usedBy: #"CLI"#,
            #"read `SECUREPUSH_CLIENT_SECRET` from this file instead"#),
        Setting(
            #"SECUREPUSH_IMAGE"#, group: .compose, default: #"`securepush:local`"#, usedBy: #"compose"#,
            #"the services' image"#),
        Setting(
            #"SECUREPUSH_BINARIES"#, group: .compose, default: #"`source`"#, usedBy: #"compose"#,
            #"`source` builds the services in the image; `prebuilt` copies binaries built on the host"#),
        Setting(
            #"SECUREPUSH_BUILDER_IMAGE"#, group: .compose, default: #"`swift:6.3-bookworm`"#, usedBy: #"compose"#,
            #"the image the services are built in"#),
        Setting(
            #"SECUREPUSH_RUNTIME_IMAGE"#, group: .compose, default: #"`debian:bookworm-slim`"#, usedBy: #"compose"#,
            #"the image the services run in"#),
        Setting(
            #"SECUREPUSH_PUBLISH_ADDRESS"#, group: .compose, default: #"`127.0.0.1`"#, usedBy: #"compose"#,
            #"the host address the published ports bind to"#),
        Setting(
            #"SECUREPUSH_PUBLIC_HOST"#, group: .compose, default: #"`localhost`"#, usedBy: #"compose"#,
            #"the host name the development certificates are made for"#),
        Setting(
            #"SECUREPUSH_AUTH_PUBLISHED_PORT"#, group: .compose, default: #"8081"#, usedBy: #"compose"#,
            #"auth's port on the host"#),
        Setting(
            #"SECUREPUSH_STORE_PUBLISHED_PORT"#, group: .compose, default: #"8082"#, usedBy: #"compose"#,
            #"notification-store's port on the host"#),
        Setting(
            #"SECUREPUSH_DISPATCH_PUBLISHED_PORT"#, group: .compose, default: #"8083"#, usedBy: #"compose"#,
            #"push-dispatch's port on the host"#),
        Setting(
            #"SECUREPUSH_STORE_PUBLISHED_PORTS"#, group: .compose, default: #"8092-8093"#,
            usedBy: #"compose (replicas)"#,
            #"the store replicas' ports on the host"#),
        Setting(
            #"SECUREPUSH_DISPATCH_PUBLISHED_PORTS"#, group: .compose, default: #"8094-8095"#,
            usedBy: #"compose (replicas)"#, #"the dispatch replicas' ports on the host"#),
        Setting(
            #"SECUREPUSH_POSTGRES_IMAGE"#, group: .compose, default: #"`postgres:16-bookworm`"#, usedBy: #"compose"#,
            #"the PostgreSQL image of the `postgres` profile"#),
        Setting(
            #"SECUREPUSH_POSTGRES_PASSWORD"#, group: .compose, default: #"a development password"#,
            usedBy: #"compose"#, isSecret: true, #"the PostgreSQL password of the `postgres` profile"#),
        Setting(
            #"SECUREPUSH_PROMETHEUS_IMAGE"#, group: .compose, default: #"`securepush-prometheus:local`"#,
            usedBy: #"compose"#, #"the Prometheus image of the `monitoring` profile"#),
        Setting(
            #"SECUREPUSH_PROMETHEUS_BASE_IMAGE"#, group: .compose, default: #"`debian:bookworm-slim`"#,
            usedBy: #"compose"#, #"the base that image is built on"#),
        Setting(
            #"SECUREPUSH_PROMETHEUS_PUBLISHED_PORT"#, group: .compose, default: #"9090"#, usedBy: #"compose"#,
            #"Prometheus's port on the host"#),
        Setting(
            #"SECUREPUSH_TEST_DATABASE_URL"#, group: .development, default: #"unset (PostgreSQL tests skipped)"#,
            usedBy: #"`swift test`"#, #"a PostgreSQL the tests may create schemas in (`.ci/postgres.sh start` sets it)"#
        ),
        Setting(
            #"SECUREPUSH_TEST_POSTGRES_DIR"#, group: .development, default: #"unset"#, usedBy: #"`.ci/postgres.sh`"#,
            #"the throwaway cluster's directory"#),
        Setting(
            #"SECUREPUSH_TEST_PYTHON"#, group: .development, default: #"the first `python3` with the modules"#,
            usedBy: #"`swift test`"#, #"the Python the tests run their independent HTTP/2 peers with"#),
        Setting(
            #"SECUREPUSH_TEST_PROMETHEUS"#, group: .development, default: #"`prometheus` on `PATH`"#,
            usedBy: #"compose/monitoring's tests"#, #"the Prometheus binary the dashboard check runs"#),
        Setting(
            #"SECUREPUSH_BENCH_BIN_DIR"#, group: .development, default: #"unset (built)"#,
            usedBy: #"`Benchmarks/run.sh`"#,
            #"where the release binaries to measure are"#),
    ]
}
