// SecurePush browser SDK — the entry module (served at /sdk/securepush.js). Plain ES modules, no dependencies, usable
// from a page and from a module service worker. See docs/web.md.
//
//   import { SecurePush } from '/sdk/securepush.js';
//   const sp = await SecurePush.create({ authURL, storeURL, dispatchURL });
//   await sp.signIn({ username, password });
//   await sp.enableNotifications({ serviceWorker: registration });
//
// and in the service worker:
//
//   self.addEventListener('push', (event) => event.waitUntil(sp.handlePush(event)));

import { SecurePushError, ErrorCodes } from './errors.js';
import { rpcCall, jwtClaims, isTraceparent, deadline, DEFAULT_TIMEOUT_MS } from './rpc.js';
import { base64urlDecode, base64urlEncode, randomBytes, toBytes, utf8Encode } from './base64url.js';
import { openSealedCopy } from './hpke.js';
import { makeDeviceProof } from './proof.js';
import { KeyStore, DEFAULT_DB_NAME, generateDeviceKeyPair, adoptStoredDeviceKey } from './keystore.js';
import { ConnectionReporter, runEventStream } from './eventstream.js';

export { SecurePushError, ErrorCodes } from './errors.js';
export { rpcCall, jwtClaims, isTraceparent } from './rpc.js';
export {
  hpkeOpenBase,
  openSealedCopy,
  importRawPrivateKeyP256,
  sealedCopyInfo,
  sealedCopyAAD,
  labeledExtract,
  labeledExpand,
} from './hpke.js';
export { makeDeviceProof, DEVICE_PROOF_HEADER } from './proof.js';
export {
  KeyStore,
  openKeyStore,
  importDeviceKeyPair,
  generateDeviceKeyPair,
  publicKeyFromPKCS8,
  DEFAULT_DB_NAME,
} from './keystore.js';
export { ServerSentEventParser, ConnectionReporter } from './eventstream.js';
export { base64urlEncode, base64urlDecode, hexToBytes, bytesToHex, utf8Encode, utf8Decode } from './base64url.js';

/** The generic notification (the secure-push tutorial's fallback): shown whenever the message cannot be shown. */
export const GENERIC_NOTIFICATION = Object.freeze({ title: 'You have a new secure message', body: 'Tap to open' });
/** The title of a decrypted message without its own title. */
export const MESSAGE_TITLE = 'Secure message';
/** The body shown for a read-once message that was already fetched (-32010). */
export const ALREADY_READ_BODY = 'This message was already read';
/** How long a service worker's push handling may take before it shows the generic notification. */
export const PUSH_TIMEOUT_MS = 10000;
/** Largest payload opened (docs/rpc.md: 64 KiB of UTF-8 by default). */
export const MAX_PAYLOAD_BYTES = 64 * 1024;
/** The Web Locks name under which pages refresh the session (one refresh at a time per origin). */
export const REFRESH_LOCK = 'securepush-refresh';
/** The Web Lock a tab holds while it reads a device's direct channel: `securepush-listen:<deviceId>`. */
export const LISTEN_LOCK_PREFIX = 'securepush-listen:';
/** The BroadcastChannel over which the listening tab passes notifications to the other tabs of this origin. */
export const LISTEN_CHANNEL = 'securepush';

const IN_SERVICE_WORKER =
  typeof ServiceWorkerGlobalScope !== 'undefined' && globalThis instanceof ServiceWorkerGlobalScope;

/** How close to its expiry an access token stops being used: 30 s, or a quarter of a short lifetime. */
function tokenMarginMs(lifetimeMs) {
  return Math.min(30000, Math.max(0, lifetimeMs) / 4);
}

/** Whether the stored session's access token can still be used at `now` (JWT `exp` and the local expiry, margin). */
export function accessTokenIsValid(session, now = Date.now()) {
  if (!session || typeof session.accessToken !== 'string') return false;
  const claims = jwtClaims(session.accessToken);
  const jwtExpiry = typeof claims?.exp === 'number' ? claims.exp * 1000 : Infinity;
  const localExpiry = typeof session.accessTokenExpiresAt === 'number' ? session.accessTokenExpiresAt : Infinity;
  const expiry = Math.min(jwtExpiry, localExpiry);
  if (!Number.isFinite(expiry)) return false;
  let lifetime = 900000;
  if (typeof claims?.exp === 'number' && typeof claims?.iat === 'number') lifetime = (claims.exp - claims.iat) * 1000;
  else if (typeof session.expiresIn === 'number') lifetime = session.expiresIn * 1000;
  return now + tokenMarginMs(lifetime) < expiry;
}

function sessionFromGrant(grant, username, now = Date.now()) {
  if (!grant || typeof grant.accessToken !== 'string' || typeof grant.refreshToken !== 'string') {
    throw new SecurePushError(ErrorCodes.invalidResponse, 'auth answered without tokens');
  }
  const expiresIn = Number(grant.expiresIn) || 0;
  return {
    userId: grant.userId,
    username,
    accessToken: grant.accessToken,
    refreshToken: grant.refreshToken,
    tokenType: grant.tokenType ?? 'Bearer',
    expiresIn,
    receivedAt: now,
    accessTokenExpiresAt: now + expiresIn * 1000,
  };
}

function withLock(name, callback) {
  const locks = globalThis.navigator?.locks;
  if (locks && typeof locks.request === 'function') return locks.request(name, callback);
  return callback();
}

function isUUIDish(value) {
  return typeof value === 'string' && value.length > 0 && value.length <= 128 && /^[0-9A-Za-z-]+$/.test(value);
}

function needsProof(error) {
  return (
    error instanceof SecurePushError &&
    error.code === ErrorCodes.invalidParams &&
    typeof error.data?.field === 'string' &&
    error.data.field.toLowerCase() === 'securepush-device-proof'
  );
}

/** Errors after which a direct-channel id is offered again later (not acknowledged). */
function isTransient(error) {
  if (!(error instanceof SecurePushError)) return true;
  return [
    ErrorCodes.network,
    ErrorCodes.timeout,
    ErrorCodes.http,
    ErrorCodes.unavailable,
    ErrorCodes.internalError,
    ErrorCodes.rateLimited,
    ErrorCodes.unauthenticated,
    ErrorCodes.notSignedIn,
  ].includes(error.code);
}

/** Web Push is definitely not available here (enableNotifications then registers a direct device). */
class WebPushRefused extends Error {}

function isWebPushNotConfigured(error) {
  return error instanceof SecurePushError && error.code === ErrorCodes.notFound;
}

/** push-dispatch refused a Web Push registration for good (not a passing failure): -32602, -32003, -32004. */
function refusesSubscription(error) {
  return (
    error instanceof SecurePushError &&
    [ErrorCodes.invalidParams, ErrorCodes.forbidden, ErrorCodes.notFound].includes(error.code)
  );
}

/**
 * The title and body a decrypted payload is shown with: a JSON object with a string `title` and/or `body` uses them;
 * anything else is the body under the title "Secure message".
 */
export function presentPayload(payload) {
  if (typeof payload === 'string' && payload.trimStart().startsWith('{')) {
    try {
      const value = JSON.parse(payload);
      if (value && typeof value === 'object' && !Array.isArray(value)) {
        const title = typeof value.title === 'string' && value.title.trim() ? value.title : null;
        const body = typeof value.body === 'string' ? value.body : null;
        if (title !== null || body !== null) return { title: title ?? MESSAGE_TITLE, body: body ?? '' };
      }
    } catch {
      // not JSON: shown as text
    }
  }
  return { title: MESSAGE_TITLE, body: String(payload ?? '') };
}

/** The JSON of a push event's data, or null when there is none or it is not a JSON object. */
export function readPushData(event) {
  try {
    const text = event?.data?.text();
    if (typeof text !== 'string' || text.length === 0 || text.length > 8192) return null;
    const value = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

/**
 * A `notificationclick` handler for the service worker: closes the notification, then focuses a window of the
 * worker's scope (telling it which notification with a `{type: 'securepush-open', notificationId}` message) or
 * opens `<url or scope>#<notificationId>`. Use: `self.addEventListener('notificationclick', handleNotificationClick)`.
 */
export function handleNotificationClick(event, { url } = {}) {
  const work = (async () => {
    try {
      event.notification?.close();
      const notificationId = event.notification?.data?.notificationId;
      const scope = globalThis.registration?.scope ?? globalThis.location?.origin + '/inbox/';
      const target = new URL(url ?? event.notification?.data?.url ?? scope, scope);
      if (isUUIDish(notificationId)) target.hash = notificationId;
      const base = target.origin + target.pathname;
      const windows = await globalThis.clients.matchAll({ type: 'window', includeUncontrolled: true });
      for (const client of windows) {
        const clientURL = new URL(client.url);
        if (clientURL.origin + clientURL.pathname !== base) continue;
        client.postMessage({ type: 'securepush-open', notificationId });
        return await client.focus();
      }
      return await globalThis.clients.openWindow(target.href);
    } catch {
      return undefined;
    }
  })();
  try {
    event.waitUntil?.(work);
  } catch {
    // waitUntil is only allowed while the event is dispatched
  }
  return work;
}
/** The same as handleNotificationClick (named after the event). */
export const notificationclick = handleNotificationClick;

/** The SecurePush device SDK for browsers. Make one with `await SecurePush.create({...})`. */
export class SecurePush {
  #config;
  #store;
  #session = null;
  #refreshing = null;
  #canRefresh;
  #appId;
  #deviceName;
  #timeoutMs;
  #maxPayloadBytes;
  #listeners = new Set();
  #sessionObservers = new Set();

  constructor(config, store, options) {
    this.#config = Object.freeze({ ...config });
    this.#store = store;
    this.#appId = options.appId;
    this.#deviceName = options.deviceName;
    this.#canRefresh = options.refresh;
    this.#timeoutMs = options.timeoutMs;
    this.#maxPayloadBytes = options.maxPayloadBytes;
  }

  /**
   * Opens the SDK: `{authURL, storeURL, dispatchURL?, appId?, dbName?}`. `dispatchURL` defaults to this origin. URLs
   * left out are taken from the ones a page of this origin gave last (so a service worker may call `create()` bare).
   * Options: `deviceName` (devices.list name, default 'Web browser'), `timeoutMs` (per call, default 15000),
   * `maxPayloadBytes` (default 65536), `refresh` (whether this context may refresh the session: pages yes, service
   * workers never).
   */
  static async create(options = {}) {
    const store = await KeyStore.open(options.dbName ?? DEFAULT_DB_NAME);
    const given = {
      authURL: options.authURL,
      storeURL: options.storeURL,
      dispatchURL: options.dispatchURL,
    };
    let config = { ...given };
    if (!config.authURL || !config.storeURL || !config.dispatchURL) {
      const stored = (await store.get('config')) ?? {};
      config = {
        authURL: config.authURL ?? stored.authURL,
        storeURL: config.storeURL ?? stored.storeURL,
        dispatchURL: config.dispatchURL ?? stored.dispatchURL ?? globalThis.location?.origin,
      };
    }
    if (!config.authURL || !config.storeURL || !config.dispatchURL) {
      store.close();
      throw new SecurePushError(ErrorCodes.config, 'SecurePush.create needs authURL, storeURL and dispatchURL');
    }
    for (const key of ['authURL', 'storeURL', 'dispatchURL']) config[key] = String(config[key]).replace(/\/+$/, '');
    if (given.authURL && given.storeURL) {
      await store.put('config', { ...config, appId: options.appId ?? null });
    }
    const sp = new SecurePush(config, store, {
      appId: options.appId ?? undefined,
      deviceName: options.deviceName ?? 'Web browser',
      refresh: options.refresh ?? !IN_SERVICE_WORKER,
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxPayloadBytes: options.maxPayloadBytes ?? MAX_PAYLOAD_BYTES,
    });
    await sp.#loadSession();
    return sp;
  }

  /** The service URLs in use: `{authURL, storeURL, dispatchURL}`. */
  get config() {
    return this.#config;
  }

  // MARK: - Session

  /** Whether a session is stored (as of the last look at IndexedDB). */
  isSignedIn() {
    return this.#session !== null;
  }

  /**
   * The session and this browser's device, without tokens: `{signedIn, userId?, username?, accessTokenValid,
   * accessTokenExpiresAt?, device: {deviceId, platform, sealed, userId} | null}`.
   */
  async session() {
    const session = await this.#loadSession();
    const device = await this.#store.get('device');
    const key = await this.#store.get('deviceKey');
    return {
      signedIn: session !== null,
      userId: session?.userId,
      username: session?.username,
      accessTokenValid: accessTokenIsValid(session),
      accessTokenExpiresAt: session?.accessTokenExpiresAt,
      device: device
        ? { deviceId: device.deviceId, platform: device.platform, sealed: !!key, userId: device.userId }
        : null,
      hasDeviceKey: !!key,
    };
  }

  /** Calls `callback(sessionOrNull)` (no tokens) when this instance signs in, refreshes or signs out. */
  onSessionChange(callback) {
    this.#sessionObservers.add(callback);
    return () => this.#sessionObservers.delete(callback);
  }

  #notifySession(session) {
    for (const observer of this.#sessionObservers) {
      try {
        observer(session ? { userId: session.userId, username: session.username } : null);
      } catch {
        // observers must not break the SDK
      }
    }
  }

  async #loadSession() {
    const session = (await this.#store.get('session')) ?? null;
    this.#session = session;
    return session;
  }

  async #saveSession(session) {
    await this.#store.put('session', session);
    this.#session = session;
    this.#notifySession(session);
  }

  async #forgetSession() {
    await this.#store.delete('session');
    this.#session = null;
    this.#notifySession(null);
  }

  #rpc(service, method, params, options = {}) {
    const url = this.#config[service];
    return rpcCall(url, method, params, { timeoutMs: this.#timeoutMs, ...options });
  }

  /** Creates an account (`auth.register`); returns `{userId}`. Deployments may close self-registration (-32003). */
  async createAccount({ username, password }) {
    return this.#rpc('authURL', 'auth.register', { username, password });
  }

  /** Signs in (`auth.login`) and stores the access and refresh tokens in IndexedDB. Returns `{userId}`. */
  async signIn({ username, password }) {
    const grant = await this.#rpc('authURL', 'auth.login', { username, password });
    const session = sessionFromGrant(grant, username);
    await this.#saveSession(session);
    return { userId: session.userId };
  }

  /**
   * Signs out: unless `keepDevice`, unregisters this browser's device (`devices.unregister`), ends its Web Push
   * subscription, closes the notifications its service worker(s) show (decrypted messages must not outlive the
   * session in the tray) and deletes its keys; then revokes the session (`auth.logout`) and forgets the tokens. Server errors
   * do not stop the local clean-up.
   */
  async signOut({ keepDevice = false } = {}) {
    for (const listener of this.#listeners) listener.stop();
    const device = await this.#store.get('device');
    if (!keepDevice) {
      if (device?.deviceId && this.#session) {
        try {
          await this.#authorized((token) =>
            this.#rpc('dispatchURL', 'devices.unregister', { deviceId: device.deviceId }, { token }),
          );
        } catch {
          // gone already, or the session is: the keys are deleted below all the same
        }
      }
      await this.#unsubscribePush(device);
      await closeShownNotifications();
      await this.#store.delete('device');
      await this.#store.delete('deviceKey');
    }
    const session = await this.#loadSession();
    if (session) {
      try {
        await this.#rpc('authURL', 'auth.logout', { refreshToken: session.refreshToken });
      } catch {
        // the tokens are forgotten below; an unreachable auth keeps a session that expires by itself
      }
    }
    await this.#forgetSession();
  }

  async #unsubscribePush(device) {
    if (!device || device.platform !== 'webpush' || IN_SERVICE_WORKER) return;
    try {
      const registrations = (await globalThis.navigator?.serviceWorker?.getRegistrations?.()) ?? [];
      for (const registration of registrations) {
        const subscription = await registration.pushManager?.getSubscription();
        if (subscription && (!device.endpoint || subscription.endpoint === device.endpoint)) {
          await subscription.unsubscribe();
        }
      }
    } catch {
      // best effort
    }
  }

  /**
   * A valid access token, refreshed first when it is (about to be) expired — in a page. A service worker never
   * refreshes: it gets null when the token is no longer valid.
   */
  async accessToken() {
    const session = await this.#loadSession();
    if (!session) throw new SecurePushError(ErrorCodes.notSignedIn, 'not signed in');
    if (accessTokenIsValid(session)) return session.accessToken;
    if (!this.#canRefresh) return null;
    return (await this.#refresh(session.accessToken)).accessToken;
  }

  /**
   * Refreshes the session once per origin at a time: under the Web Lock 'securepush-refresh', it re-reads the stored
   * tokens (another tab may have refreshed already) and only spends the refresh token when the stored access token is
   * still the stale one. Refresh tokens are single-use and reuse revokes the family, so a service worker never calls it.
   */
  async #refresh(staleAccessToken) {
    if (!this.#canRefresh) {
      throw new SecurePushError(ErrorCodes.unauthenticated, 'the session expired (this context does not refresh)');
    }
    if (this.#refreshing) return this.#refreshing;
    this.#refreshing = withLock(REFRESH_LOCK, async () => {
      const current = await this.#loadSession();
      if (!current) throw new SecurePushError(ErrorCodes.notSignedIn, 'not signed in');
      if (current.accessToken !== staleAccessToken && accessTokenIsValid(current)) return current;
      let grant;
      try {
        grant = await this.#rpc('authURL', 'auth.refresh', { refreshToken: current.refreshToken });
      } catch (error) {
        if (error instanceof SecurePushError && error.code === ErrorCodes.unauthenticated) {
          await this.#forgetSession(); // spent or revoked: sign in again
        }
        throw error;
      }
      const session = sessionFromGrant(grant, current.username);
      await this.#saveSession(session);
      return session;
    }).finally(() => {
      this.#refreshing = null;
    });
    return this.#refreshing;
  }

  /** Runs `call(token)` with a valid access token; on -32001 a page refreshes once and retries. */
  async #authorized(call) {
    const token = await this.accessToken();
    if (!token) throw new SecurePushError(ErrorCodes.unauthenticated, 'the session expired');
    try {
      return await call(token);
    } catch (error) {
      if (!(error instanceof SecurePushError) || error.code !== ErrorCodes.unauthenticated || !this.#canRefresh) {
        throw error;
      }
      const refreshed = await this.#refresh(token);
      return call(refreshed.accessToken);
    }
  }

  // MARK: - Device

  async #loadDeviceKey() {
    return adoptStoredDeviceKey(await this.#store.get('deviceKey'));
  }

  /** This browser's device key, made (and stored) the first time. */
  async #ensureDeviceKey() {
    const existing = await this.#loadDeviceKey();
    if (existing) return existing;
    return withLock('securepush-device-key', async () => {
      const again = await this.#loadDeviceKey();
      if (again) return again;
      const key = await generateDeviceKeyPair();
      const record = {
        ecdh: key.ecdh,
        ecdsa: key.ecdsa,
        publicKeyRaw: key.publicKeyRaw,
        publicKey: key.publicKey,
        createdAt: new Date().toISOString(),
      };
      await this.#store.put('deviceKey', record);
      return adoptStoredDeviceKey(record);
    });
  }

  /** This browser's registered device: `{deviceId, platform, userId, name}` or null. */
  async device() {
    const device = await this.#store.get('device');
    if (!device) return null;
    return { deviceId: device.deviceId, platform: device.platform, userId: device.userId, name: device.name };
  }

  /**
   * Registers this browser as a sealed device (`devices.register` with `publicKey`): platform `webpush` with
   * `subscription` (a PushSubscription or its toJSON()), else `direct` with a stable installation token, so
   * registering again updates the same device. Returns `{deviceId, platform}` (and `verification` if pending).
   */
  async registerDevice({ subscription, name } = {}) {
    const session = await this.#loadSession();
    if (!session) throw new SecurePushError(ErrorCodes.notSignedIn, 'sign in first');
    const key = await this.#ensureDeviceKey();
    const previous = await this.#store.get('device');
    const installationId = previous?.installationId ?? `web-${base64urlEncode(randomBytes(16))}`;
    let platform;
    let token;
    let endpoint;
    if (subscription) {
      const json = typeof subscription.toJSON === 'function' ? subscription.toJSON() : subscription;
      if (!json || typeof json.endpoint !== 'string' || !json.keys?.p256dh || !json.keys?.auth) {
        throw new TypeError('registerDevice: subscription must be a PushSubscription or {endpoint, keys: {p256dh, auth}}');
      }
      platform = 'webpush';
      endpoint = json.endpoint;
      token = JSON.stringify({ endpoint: json.endpoint, keys: { p256dh: json.keys.p256dh, auth: json.keys.auth } });
    } else {
      platform = 'direct';
      token = installationId;
    }
    const deviceName = name ?? previous?.name ?? this.#deviceName;
    const params = { platform, token, name: deviceName, publicKey: key.publicKey };
    if (this.#appId !== undefined) params.appId = this.#appId;
    const result = await this.#authorized((t) => this.#rpc('dispatchURL', 'devices.register', params, { token: t }));
    if (previous?.deviceId && previous.deviceId !== result.deviceId && previous.userId === session.userId) {
      // This browser had another device of this user (say direct before Web Push): one browser, one device.
      try {
        await this.#authorized((t) =>
          this.#rpc('dispatchURL', 'devices.unregister', { deviceId: previous.deviceId }, { token: t }),
        );
      } catch {
        // gone already
      }
    }
    const device = {
      deviceId: result.deviceId,
      platform,
      userId: session.userId,
      installationId,
      name: deviceName,
      endpoint,
      verification: result.verification,
      registeredAt: new Date().toISOString(),
    };
    await this.#store.put('device', device);
    return result.verification
      ? { deviceId: result.deviceId, platform, verification: result.verification }
      : { deviceId: result.deviceId, platform };
  }

  /**
   * Turns notifications on for this browser: asks for notification permission, makes the device key, subscribes to
   * Web Push with push-dispatch's VAPID key (`devices.webPushKey`) through `serviceWorker` (a
   * ServiceWorkerRegistration; default: this page's), and registers a sealed `webpush` device — or, when Web Push is
   * definitely not possible (permission not granted, no service worker with a push manager, the browser's push
   * service refusing to subscribe, push-dispatch answering -32004 "Web Push not configured" or refusing the
   * subscription with -32602/-32003/-32004), a sealed `direct` device (read with listen() while a page is open).
   * Any other failure (push-dispatch unreachable or -32050, a timeout, a worker that does not activate) is thrown and
   * the device this browser already has is left as it was. Enabling again reuses the device: a `webpush` device
   * keeps its subscription (`pushManager.getSubscription()`, even when push-dispatch cannot be asked for its key).
   * Returns `{deviceId, platform: 'webpush'|'direct', sealed: true, permission, reason?}` (`reason`: why Web Push
   * was not used).
   */
  async enableNotifications({ serviceWorker, name } = {}) {
    // Asked first, while the click that called us still counts as a user gesture.
    let permission = globalThis.Notification?.permission ?? 'unsupported';
    if (permission === 'default' && typeof globalThis.Notification?.requestPermission === 'function') {
      try {
        permission = await globalThis.Notification.requestPermission();
      } catch {
        permission = globalThis.Notification.permission;
      }
    }
    const session = this.#session ?? (await this.#loadSession());
    if (!session) throw new SecurePushError(ErrorCodes.notSignedIn, 'sign in first');
    await this.#ensureDeviceKey();
    const stored = await this.#store.get('device');
    const previous = stored && stored.userId === session.userId ? stored : null;
    let reason;
    let subscription = null;
    let fresh = false;
    if (permission !== 'granted') {
      reason = `notification permission is ${permission}`;
    } else {
      try {
        ({ subscription, fresh } = await this.#subscribe(serviceWorker, previous));
      } catch (error) {
        if (!(error instanceof WebPushRefused)) throw error; // passing: the device stays as it is
        reason = error.message;
      }
    }
    if (subscription) {
      try {
        const result = await this.registerDevice({ subscription, name });
        return { ...result, sealed: true, permission };
      } catch (error) {
        if (!refusesSubscription(error)) throw error; // passing (network, -32050, …): leave the device alone
        reason = `push-dispatch refused the Web Push subscription: ${error?.message ?? error}`;
        // A subscription push-dispatch will not use (its push service is not allowed, say) only costs the push service.
        if (fresh && typeof subscription.unsubscribe === 'function') await subscription.unsubscribe().catch(() => {});
      }
    }
    const result = await this.registerDevice({ name });
    return { ...result, sealed: true, permission, ...(reason ? { reason } : {}) };
  }

  /**
   * The push subscription to register: `{subscription, fresh}`. Throws WebPushRefused when Web Push is definitely not
   * available here, anything else (passing failures) as it is.
   */
  async #subscribe(serviceWorker, previous) {
    let registration = serviceWorker;
    if (!registration) {
      registration = await globalThis.navigator?.serviceWorker?.getRegistration?.();
    }
    if (!registration?.pushManager) throw new WebPushRefused('no service worker with Web Push');
    const params = this.#appId !== undefined ? { appId: this.#appId } : {};
    let existing = null;
    if (previous?.platform === 'webpush') existing = await registration.pushManager.getSubscription().catch(() => null);
    if (existing) {
      // A working Web Push device: keep its subscription. push-dispatch's key is only checked when it answers.
      let vapidPublicKey = null;
      try {
        ({ vapidPublicKey } = await this.#rpc('dispatchURL', 'devices.webPushKey', params));
      } catch (error) {
        if (isWebPushNotConfigured(error)) throw new WebPushRefused('Web Push is not configured on push-dispatch');
      }
      const current = existing.options?.applicationServerKey;
      if (!vapidPublicKey || !current || sameBytes(new Uint8Array(current), base64urlDecode(vapidPublicKey))) {
        return { subscription: existing, fresh: false };
      }
      // push-dispatch has a new VAPID key: the old subscription cannot be pushed to any more.
    }
    await waitUntilActive(registration, 10000);
    let vapidPublicKey;
    try {
      ({ vapidPublicKey } = await this.#rpc('dispatchURL', 'devices.webPushKey', params));
    } catch (error) {
      if (isWebPushNotConfigured(error)) throw new WebPushRefused('Web Push is not configured on push-dispatch');
      throw error;
    }
    const serverKey = base64urlDecode(vapidPublicKey);
    existing = await registration.pushManager.getSubscription();
    if (existing) {
      const current = existing.options?.applicationServerKey;
      if (current && sameBytes(new Uint8Array(current), serverKey)) return { subscription: existing, fresh: false };
      await existing.unsubscribe();
      existing = null;
    }
    try {
      const subscription = await registration.pushManager.subscribe({
        userVisibleOnly: true,
        applicationServerKey: serverKey,
      });
      return { subscription, fresh: true };
    } catch (error) {
      // The browser (its push service) refused: no Web Push here.
      throw new WebPushRefused(`the browser could not subscribe to Web Push: ${error?.message ?? error}`);
    }
  }

  /**
   * Re-registers this browser's `webpush` device when its push subscription changed (the browser or the push service
   * rotated it): call on page load, with the service worker registration. Compares `pushManager.getSubscription()`
   * with the endpoint the device was registered with and registers the current one (subscribing again, with the same
   * VAPID key, when the subscription is gone and permission is granted). Returns `{changed, deviceId?, reason?}`;
   * failures are returned as `reason`, never thrown.
   */
  async syncSubscription({ serviceWorker } = {}) {
    try {
      const session = await this.#loadSession();
      const device = await this.#store.get('device');
      if (!session || !device || device.platform !== 'webpush' || device.userId !== session.userId) {
        return { changed: false };
      }
      const registration =
        serviceWorker ?? (await globalThis.navigator?.serviceWorker?.getRegistration?.());
      if (!registration?.pushManager) return { changed: false, reason: 'no service worker with Web Push' };
      let subscription = await registration.pushManager.getSubscription();
      if (!subscription) {
        if (globalThis.Notification?.permission !== 'granted') {
          return { changed: false, reason: 'the push subscription is gone and notification permission is not granted' };
        }
        ({ subscription } = await this.#subscribe(registration, null));
      }
      if (subscription.endpoint === device.endpoint) return { changed: false, deviceId: device.deviceId };
      const result = await this.registerDevice({ subscription });
      return { changed: true, deviceId: result.deviceId };
    } catch (error) {
      return { changed: false, reason: describeError(error) };
    }
  }

  /**
   * Handles a `pushsubscriptionchange` event in a service worker: `event.waitUntil(sp.handleSubscriptionChange(event))`.
   * Registers the new subscription (`event.newSubscription`, else the registration's current one, else a new one with
   * the old subscription's key) with the access token while it is valid; a worker never refreshes, so otherwise the
   * next page load re-registers it (syncSubscription). Never throws; resolves to `{changed, deviceId?, reason?}`.
   */
  async handleSubscriptionChange(event, { registration = globalThis.registration } = {}) {
    try {
      const device = await this.#store.get('device');
      if (!device || device.platform !== 'webpush') return { changed: false, reason: 'no webpush device here' };
      let subscription = event?.newSubscription ?? (await registration?.pushManager?.getSubscription());
      if (!subscription) {
        const applicationServerKey = event?.oldSubscription?.options?.applicationServerKey;
        if (!applicationServerKey || !registration?.pushManager) {
          return { changed: false, reason: 'no new subscription' };
        }
        subscription = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey });
      }
      if (subscription.endpoint === device.endpoint) return { changed: false, deviceId: device.deviceId };
      const session = await this.#loadSession();
      if (!accessTokenIsValid(session) || session.userId !== device.userId) {
        return { changed: false, reason: 'no valid access token: a page re-registers it' };
      }
      const result = await this.registerDevice({ subscription });
      return { changed: true, deviceId: result.deviceId };
    } catch (error) {
      return { changed: false, reason: describeError(error) };
    }
  }

  /** The signed-in user's devices (`devices.list`). */
  async devices() {
    return (await this.#authorized((t) => this.#rpc('dispatchURL', 'devices.list', {}, { token: t }))).devices;
  }

  /** Tells push-dispatch a direct-channel id was handled (`devices.ack`). */
  async acknowledge(deviceId, notificationId) {
    await this.#authorized((t) => this.#rpc('dispatchURL', 'devices.ack', { deviceId, notificationId }, { token: t }));
  }

  /** Answers a device-verification challenge (`devices.verify`); returns `{deviceId}`. */
  async verifyDevice({ deviceId, challenge }) {
    return this.#authorized((t) => this.#rpc('dispatchURL', 'devices.verify', { deviceId, challenge }, { token: t }));
  }

  // MARK: - Notifications

  /** The signed-in user's notifications (`store.list`): `{items: [{notificationId, createdAt, expiresAt, readAt?, gone?}], nextCursor?}`. */
  async list({ unreadOnly, limit, cursor } = {}) {
    const params = {};
    if (unreadOnly !== undefined) params.unreadOnly = unreadOnly;
    if (limit !== undefined) params.limit = limit;
    if (cursor !== undefined) params.cursor = cursor;
    return this.#authorized((t) => this.#rpc('storeURL', 'store.list', params, { token: t }));
  }

  /** Marks a notification read (`store.markRead`); returns `{readAt}`. */
  async markRead(notificationId) {
    return this.#authorized((t) => this.#rpc('storeURL', 'store.markRead', { notificationId }, { token: t }));
  }

  /** Deletes a notification, every copy (`store.delete`). */
  async deleteNotification(notificationId) {
    return this.#authorized((t) => this.#rpc('storeURL', 'store.delete', { notificationId }, { token: t }));
  }

  /**
   * Fetches a notification (`store.get`) and returns it opened: `{notificationId, payload, sealed, createdAt,
   * expiresAt, readAt?}`. With a sealed device in this browser it asks for the device's sealed copy — with the access
   * token while it is valid, else (and for read-once copies always) with a fresh device proof — and opens it with
   * HPKE. `traceparent` (from the push) is sent as the W3C header. Errors are SecurePushError with the JSON-RPC code
   * (-32010: a read-once message already read; -32004: gone or not yours).
   */
  async open(notificationId, { traceparent, signal, timeoutMs } = {}) {
    if (!isUUIDish(notificationId)) throw new SecurePushError(ErrorCodes.invalidParams, 'not a notification id');
    const options = { traceparent, signal, timeoutMs: timeoutMs ?? this.#timeoutMs };
    const key = await this.#loadDeviceKey();
    const device = await this.#store.get('device');
    let result;
    if (key && device?.deviceId) {
      result = await this.#fetchAsDevice(notificationId, device, key, options);
    } else {
      result = await this.#authorized((t) => this.#rpc('storeURL', 'store.get', { notificationId }, { ...options, token: t }));
    }
    return this.#opened(notificationId, result, key, device);
  }

  async #fetchAsDevice(notificationId, device, key, options) {
    const params = { notificationId, deviceId: device.deviceId };
    const withProof = async () => {
      const proof = await makeDeviceProof({ ecdsaKey: key.ecdsa, notificationId, deviceId: device.deviceId });
      return this.#rpc('storeURL', 'store.get', params, { ...options, proof });
    };
    const session = await this.#loadSession();
    const ownToken = session && session.userId === device.userId && accessTokenIsValid(session);
    if (!ownToken) {
      try {
        return await withProof();
      } catch (error) {
        // Not sealed to this device (sent before it registered): a page may still read it with the session.
        if (error instanceof SecurePushError && error.code === ErrorCodes.notFound && this.#canRefresh && session) {
          return this.#authorized((t) => this.#rpc('storeURL', 'store.get', { notificationId }, { ...options, token: t }));
        }
        throw error;
      }
    }
    try {
      return await this.#rpc('storeURL', 'store.get', params, { ...options, token: session.accessToken });
    } catch (refused) {
      if (needsProof(refused)) return withProof(); // read-once sealed copy: only the device's proof consumes it
      if (refused instanceof SecurePushError && refused.code === ErrorCodes.unauthenticated) {
        let proofError;
        try {
          return await withProof(); // the token was refused; the key may still fetch
        } catch (error) {
          if (error instanceof SecurePushError && error.code === ErrorCodes.gone) throw error;
          proofError = error;
        }
        if (!this.#canRefresh) throw refused;
        // A page: the token alone again, through the refreshing path (a refused token is refreshed, then retried).
        try {
          return await this.#authorized(async (t) => {
            if (t === session.accessToken) throw refused; // the same token was refused a moment ago: refresh it
            return this.#rpc('storeURL', 'store.get', params, { ...options, token: t });
          });
        } catch (error) {
          if (needsProof(error)) throw proofError;
          throw error;
        }
      }
      throw refused;
    }
  }

  async #opened(notificationId, result, key, device) {
    if (!result || typeof result !== 'object') {
      throw new SecurePushError(ErrorCodes.invalidResponse, 'store.get answered without a notification');
    }
    let payload;
    let sealed = false;
    if (result.sealed) {
      if (!key || result.sealed.deviceId !== device?.deviceId) {
        throw new SecurePushError(ErrorCodes.invalidSealedCopy, 'the sealed copy is not for this device');
      }
      payload = await openSealedCopy({
        privateKey: key.ecdh,
        publicKey: key.publicKeyRaw,
        notificationId,
        deviceId: result.sealed.deviceId,
        enc: result.sealed.enc,
        ciphertext: result.sealed.ciphertext,
        maxPlaintextBytes: this.#maxPayloadBytes,
      });
      sealed = true;
    } else if (typeof result.payload === 'string') {
      if (result.payload.length > this.#maxPayloadBytes || utf8Encode(result.payload).length > this.#maxPayloadBytes) {
        throw new SecurePushError(ErrorCodes.oversized, 'the payload is larger than the limit');
      }
      payload = result.payload;
    } else {
      throw new SecurePushError(ErrorCodes.noPayload, 'store.get answered without a payload');
    }
    const opened = { notificationId: result.notificationId ?? notificationId, payload, sealed };
    for (const field of ['createdAt', 'expiresAt', 'readAt']) {
      if (result[field] !== undefined) opened[field] = result[field];
    }
    return opened;
  }

  // MARK: - Service worker

  /**
   * Handles a Web Push `push` event in a service worker: `event.waitUntil(sp.handlePush(event))`. The data
   * `{"secureId": …, "traceparent"?}` names a notification: it is fetched with the device proof (or a still-valid
   * access token; never a refresh), opened, and shown with its plaintext. Anything failing shows the generic
   * notification ("You have a new secure message", "Tap to open"); a read-once message already read shows "This
   * message was already read". A device-verification challenge is answered when the access token is valid. Never
   * throws; resolves to `{shown: 'message'|'generic'|'already-read'|'none', notificationId?, reason?}`.
   */
  async handlePush(event, { registration = globalThis.registration, timeoutMs = PUSH_TIMEOUT_MS } = {}) {
    // The deadline starts here, before anything is awaited (IndexedDB, the network): whatever hangs, the generic
    // notification is shown in time. Only this function shows notifications, so nothing late replaces it.
    const limit = deadline(undefined, timeoutMs);
    const state = { notificationId: undefined };
    const TIMED_OUT = Symbol('timed out');
    const expired = new Promise((resolve) => {
      if (limit.signal.aborted) resolve(TIMED_OUT);
      limit.signal.addEventListener('abort', () => resolve(TIMED_OUT), { once: true });
    });
    let outcome;
    try {
      outcome = await Promise.race([
        this.#pushOutcome(event, state, limit.signal, timeoutMs).then(
          (value) => ({ value }),
          (error) => ({ error }),
        ),
        expired,
      ]);
    } finally {
      limit.cancel();
    }
    const notificationId = state.notificationId;
    if (outcome === TIMED_OUT) {
      return this.#showGeneric(registration, notificationId, `${ErrorCodes.timeout}: timed out after ${timeoutMs} ms`);
    }
    if (outcome.value?.generic) return this.#showGeneric(registration, notificationId, outcome.value.generic);
    if (outcome.value?.challenge) return { shown: 'none', kind: 'challenge' };
    if (outcome.value?.opened) {
      try {
        const { title, body } = presentPayload(outcome.value.opened.payload);
        await registration.showNotification(title, { body, tag: notificationId, data: { notificationId } });
        this.#tellWindows({ type: 'securepush-push', notificationId, payload: outcome.value.opened.payload });
        return { shown: 'message', notificationId };
      } catch (error) {
        return this.#showGeneric(registration, notificationId, describeError(error));
      }
    }
    const error = outcome.error;
    if (error instanceof SecurePushError && error.code === ErrorCodes.gone) {
      try {
        await registration.showNotification(MESSAGE_TITLE, {
          body: ALREADY_READ_BODY,
          tag: notificationId,
          data: { notificationId },
        });
        return { shown: 'already-read', notificationId };
      } catch {
        // fall through to the generic one
      }
    }
    return this.#showGeneric(registration, notificationId, describeError(error));
  }

  /** What a push asks for: `{challenge}`, `{generic: reason}` or `{opened}`; throws what open() throws. */
  async #pushOutcome(event, state, signal, timeoutMs) {
    const data = readPushData(event);
    if (data && typeof data.securepushChallenge === 'string') {
      await this.#answerChallenge(data);
      return { challenge: true };
    }
    if (!data || !isUUIDish(data.secureId)) return { generic: 'push data is not {"secureId": …}' };
    state.notificationId = data.secureId;
    const key = await this.#loadDeviceKey();
    if (!key) return { generic: 'no device key in this browser' };
    const opened = await this.open(data.secureId, {
      traceparent: isTraceparent(data.traceparent) ? data.traceparent : undefined,
      signal,
      timeoutMs,
    });
    return { opened };
  }

  async #showGeneric(registration, notificationId, reason) {
    try {
      await registration.showNotification(GENERIC_NOTIFICATION.title, {
        body: GENERIC_NOTIFICATION.body,
        tag: notificationId ?? 'securepush',
        data: notificationId ? { notificationId } : {},
      });
      return { shown: 'generic', notificationId, reason };
    } catch (error) {
      return { shown: 'none', notificationId, reason: `${reason}; showNotification failed: ${describeError(error)}` };
    }
  }

  async #tellWindows(message) {
    try {
      if (!IN_SERVICE_WORKER) return;
      const windows = await globalThis.clients.matchAll({ type: 'window' });
      for (const client of windows) client.postMessage(message);
    } catch {
      // nobody to tell
    }
  }

  /** A challenge push (`{securepushChallenge, securepushDeviceId}`): answered with a valid token, else ignored. */
  async #answerChallenge(data) {
    try {
      const session = await this.#loadSession();
      const deviceId = typeof data.securepushDeviceId === 'string' ? data.securepushDeviceId : null;
      if (!deviceId || !accessTokenIsValid(session)) return;
      await this.#rpc(
        'dispatchURL',
        'devices.verify',
        { deviceId, challenge: data.securepushChallenge },
        { token: session.accessToken },
      );
      const device = await this.#store.get('device');
      if (device && device.deviceId === deviceId) {
        await this.#store.put('device', { ...device, verification: undefined });
      }
    } catch {
      // -32004: someone else's pending device; anything else: nothing to do from a push
    }
  }

  /** See handleNotificationClick. */
  handleNotificationClick(event, options) {
    return handleNotificationClick(event, options);
  }

  // MARK: - Direct channel

  /**
   * Reads this browser's direct device's event stream while the page is open (`GET <dispatchURL>/devices/{id}/events`
   * with the bearer token), reconnecting with backoff. Each id is opened and given to `onNotification(opened)` (or
   * `onNotification({notificationId, error})` when it could not be opened), then acknowledged (`devices.ack`).
   * `onState({state, message, ...})` gets the states the CLI's `listen` prints: connecting, connected, reconnected,
   * disconnected (with `retryInMs`), stopped — and `another-tab` while another tab of this browser holds the stream.
   *
   * One tab listens per device: the stream is read under the Web Lock `securepush-listen:<deviceId>` (held until
   * stop(), or the tab closes; the next waiting tab then takes over), and the listening tab passes each notification
   * (opened or failed) to the other tabs over the BroadcastChannel `securepush`, whose `onNotification` is called too.
   * Returns `{stop(), done, deviceId}`.
   */
  listen({ onNotification, onState, connectTimeoutMs, idleTimeoutMs } = {}) {
    if (IN_SERVICE_WORKER) throw new SecurePushError(ErrorCodes.unsupported, 'listen() runs in a page');
    const controller = new AbortController();
    const reporter = new ConnectionReporter({ dispatchURL: this.#config.dispatchURL, deviceId: null, onState });
    const handle = {
      stop: () => controller.abort(),
      deviceId: null,
      done: null,
    };
    const deliver = async (result) => {
      try {
        await onNotification?.(result);
      } catch {
        // the page's handler failing does not stop the stream
      }
    };
    let channel = null;
    let holding = false;
    handle.done = (async () => {
      const device = await this.#store.get('device');
      if (!device?.deviceId || device.platform !== 'direct') {
        throw new SecurePushError(ErrorCodes.noDevice, 'this browser has no direct device: enableNotifications() first');
      }
      handle.deviceId = device.deviceId;
      reporter.deviceId = device.deviceId;
      if (typeof globalThis.BroadcastChannel === 'function') {
        channel = new BroadcastChannel(LISTEN_CHANNEL);
        channel.onmessage = (event) => {
          const message = event.data;
          if (!message || message.type !== 'securepush-notification' || message.deviceId !== device.deviceId) return;
          if (holding || controller.signal.aborted) return;
          const result = message.error
            ? { notificationId: message.notificationId, error: reviveError(message.error), viaTab: true }
            : { ...message.opened, viaTab: true };
          deliver(result);
        };
      }
      const run = async () => {
        holding = true;
        await runEventStream({
          dispatchURL: this.#config.dispatchURL,
          deviceId: device.deviceId,
          signal: controller.signal,
          reporter,
          connectTimeoutMs,
          idleTimeoutMs,
          accessToken: async () => {
            const token = await this.accessToken();
            if (!token) throw new SecurePushError(ErrorCodes.unauthenticated, 'the session expired');
            return token;
          },
          refresh: (stale) => this.#refresh(stale),
          onNotify: async ({ notificationId, traceparent }) => {
            let opened;
            let error;
            try {
              opened = await this.open(notificationId, { traceparent });
            } catch (failure) {
              error = failure;
            }
            try {
              channel?.postMessage({
                type: 'securepush-notification',
                deviceId: device.deviceId,
                notificationId,
                ...(error ? { error: serializeError(error) } : { opened }),
              });
            } catch {
              // no other tab to tell
            }
            await deliver(error ? { notificationId, error } : opened);
            if (error && isTransient(error)) return false;
            try {
              await this.acknowledge(device.deviceId, notificationId);
            } catch {
              return false;
            }
            return true;
          },
        });
      };
      const locks = globalThis.navigator?.locks;
      if (!locks || typeof locks.request !== 'function') return run();
      const lockName = `${LISTEN_LOCK_PREFIX}${device.deviceId}`;
      const ranAtOnce = await locks.request(lockName, { ifAvailable: true }, async (lock) => {
        if (!lock) return false;
        await run();
        return true;
      });
      if (ranAtOnce || controller.signal.aborted) return undefined;
      reporter.elsewhere();
      try {
        await locks.request(lockName, { signal: controller.signal }, () => run());
      } catch (error) {
        if (controller.signal.aborted) return undefined; // stopped while waiting for the lock
        throw error;
      }
      return undefined;
    })().then(
      () => reporter.stopped(),
      (error) => {
        reporter.stopped(controller.signal.aborted ? null : error);
      },
    ).finally(() => {
      channel?.close();
      this.#listeners.delete(handle);
    });
    this.#listeners.add(handle);
    return handle;
  }
}

/** Closes every notification shown by this origin's service worker registrations (signOut). */
async function closeShownNotifications() {
  try {
    let registrations = [];
    if (IN_SERVICE_WORKER) {
      if (globalThis.registration) registrations = [globalThis.registration];
    } else {
      registrations = (await globalThis.navigator?.serviceWorker?.getRegistrations?.()) ?? [];
    }
    for (const registration of registrations) {
      const shown = (await registration.getNotifications?.()) ?? [];
      for (const notification of shown) notification.close();
    }
  } catch {
    // best effort: no service worker, or notifications unsupported
  }
}

/** An error as a BroadcastChannel message can carry it (structured clone drops `code` and `data`). */
function serializeError(error) {
  if (error instanceof SecurePushError) {
    let data;
    try {
      data = error.data === undefined ? undefined : JSON.parse(JSON.stringify(error.data));
    } catch {
      data = undefined;
    }
    return { code: error.code, message: error.message, data };
  }
  return { message: String(error?.message ?? error) };
}

function reviveError(value) {
  if (value && value.code !== undefined) return new SecurePushError(value.code, value.message, value.data);
  return new Error(value?.message ?? 'failed in another tab');
}

function describeError(error) {
  if (error instanceof SecurePushError) return `${error.code}: ${error.message}`;
  return String(error?.message ?? error);
}

function sameBytes(a, b) {
  const x = toBytes(a);
  const y = toBytes(b);
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}

async function waitUntilActive(registration, timeoutMs) {
  if (registration.active) return;
  const worker = registration.installing ?? registration.waiting;
  if (!worker) throw new Error('the service worker is not installed');
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the service worker did not activate')), timeoutMs);
    const check = () => {
      if (worker.state === 'activated' || registration.active) {
        clearTimeout(timer);
        worker.removeEventListener('statechange', check);
        resolve();
      } else if (worker.state === 'redundant') {
        clearTimeout(timer);
        reject(new Error('the service worker failed to install'));
      }
    };
    worker.addEventListener('statechange', check);
    check();
  });
}

export default SecurePush;
