// SecurePush inbox service worker (a module worker: register it with {type: 'module', scope: '/inbox/'}).
// On a Web Push message {"secureId": …} it fetches the sealed copy with this browser's device proof, opens it here,
// and shows the plaintext; whenever that fails it shows the generic "You have a new secure message". It never
// refreshes the session (pages do, under a Web Lock): it uses the access token while valid, else the proof alone.

import { SecurePush, GENERIC_NOTIFICATION, PUSH_TIMEOUT_MS, handleNotificationClick } from '../sdk/securepush.js';

/** How long the worker waits for config.json (the URLs a page stored are used when it does not answer). */
const CONFIG_TIMEOUT_MS = 3000;

let securePush = null;

function timeoutSignal(ms) {
  if (typeof AbortSignal.timeout === 'function') return AbortSignal.timeout(ms);
  const controller = new AbortController();
  setTimeout(() => controller.abort(), ms);
  return controller.signal;
}

async function loadConfig() {
  try {
    const response = await fetch(new URL('./config.json', self.location.href), {
      cache: 'no-store',
      signal: timeoutSignal(CONFIG_TIMEOUT_MS),
    });
    if (!response.ok) return {};
    const config = await response.json();
    return config && typeof config === 'object' ? config : {};
  } catch {
    return {}; // offline, slow, or push-dispatch restarting: the URLs a page stored last are used
  }
}

function sdk() {
  securePush ??= (async () => {
    const config = await loadConfig();
    return SecurePush.create({
      authURL: config.authURL || undefined,
      storeURL: config.storeURL || undefined,
      dispatchURL: config.dispatchURL || self.location.origin,
      ...(config.appId ? { appId: config.appId } : {}),
    });
  })().catch((error) => {
    securePush = null; // try again on the next push
    throw error;
  });
  return securePush;
}

/** `promise`, or a rejection after `ms`. */
function within(promise, ms) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error('timed out')), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

async function showGeneric() {
  try {
    await self.registration.showNotification(GENERIC_NOTIFICATION.title, {
      body: GENERIC_NOTIFICATION.body,
      tag: 'securepush',
    });
  } catch {
    // nothing more to do
  }
  return { shown: 'generic' };
}

async function onPush(event) {
  // One deadline for the whole push, from its first moment: starting the SDK (config.json, IndexedDB) counts too.
  const started = Date.now();
  let sp;
  try {
    sp = await within(sdk(), PUSH_TIMEOUT_MS - 1000);
  } catch {
    // Not even the SDK could start (no IndexedDB, no configuration, too slow): still tell the user something arrived.
    return showGeneric();
  }
  const left = Math.max(1000, PUSH_TIMEOUT_MS - (Date.now() - started));
  return sp.handlePush(event, { timeoutMs: left });
}

async function onSubscriptionChange(event) {
  try {
    const sp = await within(sdk(), PUSH_TIMEOUT_MS);
    return await sp.handleSubscriptionChange(event);
  } catch {
    return { changed: false }; // the next page load re-registers the subscription
  }
}

self.addEventListener('install', () => {
  self.skipWaiting();
});

self.addEventListener('activate', (event) => {
  event.waitUntil(self.clients.claim());
});

self.addEventListener('push', (event) => {
  event.waitUntil(onPush(event));
});

// The browser or its push service replaced the subscription: register the new one (with a valid access token; else
// the next page load does it).
self.addEventListener('pushsubscriptionchange', (event) => {
  event.waitUntil(onSubscriptionChange(event));
});

self.addEventListener('notificationclick', (event) => {
  handleNotificationClick(event);
});
