// SecurePush inbox service worker (a module worker: register it with {type: 'module', scope: '/inbox/'}).
// On a Web Push message {"secureId": …} it fetches the sealed copy with this browser's device proof, opens it here,
// and shows the plaintext; whenever that fails it shows the generic "You have a new secure message". It never
// refreshes the session (pages do, under a Web Lock): it uses the access token while valid, else the proof alone.

import { SecurePush, GENERIC_NOTIFICATION, handleNotificationClick } from '../sdk/securepush.js';

let securePush = null;

async function loadConfig() {
  try {
    const response = await fetch(new URL('./config.json', self.location.href), { cache: 'no-store' });
    if (!response.ok) return {};
    const config = await response.json();
    return config && typeof config === 'object' ? config : {};
  } catch {
    return {}; // offline or push-dispatch restarting: the URLs a page stored last are used
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

async function onPush(event) {
  try {
    const sp = await sdk();
    return await sp.handlePush(event);
  } catch {
    // Not even the SDK could start (no IndexedDB, no configuration): still tell the user something arrived.
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

self.addEventListener('notificationclick', (event) => {
  handleNotificationClick(event);
});
