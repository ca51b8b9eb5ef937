@_exported import JSONRPC

/// Methods served by the auth service (default port 8081).
public enum Auth {}
/// Account methods served by auth (default port 8081): erasure.
public enum Users {}
/// Methods served by the notification store (default port 8082).
public enum Store {}
/// Device methods served by push-dispatch (default port 8083).
public enum Devices {}
/// Push methods served by push-dispatch (default port 8083).
public enum Push {}
/// App administration served by push-dispatch (default port 8083), scope `apps:admin`.
public enum Apps {}
/// Webhook endpoints served by push-dispatch (default port 8083), scope `webhooks:manage`.
public enum Webhooks {}
