// SecurePush web inbox: sign in, turn on notifications for this browser, list and open sealed messages.
// Everything from the network is rendered with textContent (never as HTML); no inline script or style (strict CSP).

import { SecurePush, SecurePushError, ErrorCodes } from '../sdk/securepush.js';

const WEB_PUSH_MODE = 'Notifications arrive through Web Push';
const DIRECT_MODE = 'Notifications arrive while this page is open (direct channel)';
const PAGE_SIZE = 50;

const $ = (id) => document.getElementById(id);

let sp = null;
let registration = null;
let listener = null;
let selectedId = null;
let nextCursor = null;
let items = [];
/** Plaintexts opened in this page (read-once messages cannot be fetched twice); memory only. */
const plaintexts = new Map();

// MARK: - Status and small helpers

function setStatus(text, kind = '') {
  const status = $('status');
  status.textContent = text;
  status.classList.toggle('error', kind === 'error');
  status.classList.toggle('ok', kind === 'ok');
}

function formatTime(iso) {
  if (!iso) return '';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? String(iso) : date.toLocaleString();
}

function explain(error) {
  if (error instanceof SecurePushError) {
    switch (error.code) {
      case ErrorCodes.unauthenticated:
        return 'Not accepted: wrong username or password, or the session ended.';
      case ErrorCodes.rateLimited: {
        const wait = error.data?.retryAfterSeconds;
        return wait ? `Too many attempts. Try again in ${wait} s.` : 'Too many requests. Try again later.';
      }
      case ErrorCodes.gone:
        return 'This message was already read.';
      case ErrorCodes.notFound:
        return 'This message is gone: it expired, was deleted, or is not yours.';
      case ErrorCodes.unavailable:
        return 'A SecurePush service is unavailable right now. Try again shortly.';
      case ErrorCodes.network:
        return 'Cannot reach SecurePush. Check your connection and try again.';
      case ErrorCodes.timeout:
        return 'SecurePush did not answer in time. Try again.';
      case ErrorCodes.invalidSealedCopy:
        return 'This message could not be decrypted on this browser.';
      case ErrorCodes.notSignedIn:
        return 'Sign in first.';
      default:
        return error.message || String(error.code);
    }
  }
  return error?.message ? String(error.message) : String(error);
}

function sessionEnded(error) {
  return (
    error instanceof SecurePushError &&
    (error.code === ErrorCodes.notSignedIn || error.code === ErrorCodes.unauthenticated) &&
    !sp.isSignedIn()
  );
}

async function busy(button, action) {
  button.disabled = true;
  button.setAttribute('aria-busy', 'true');
  try {
    return await action();
  } finally {
    button.disabled = false;
    button.removeAttribute('aria-busy');
  }
}

// MARK: - Views

function showSignIn() {
  stopListening();
  $('app-section').hidden = true;
  $('sign-in-section').hidden = false;
  $('who').hidden = true;
  $('who').textContent = '';
  clearInbox();
}

async function showApp() {
  $('sign-in-section').hidden = true;
  $('app-section').hidden = false;
  const session = await sp.session();
  $('who').textContent = session.username ? `Signed in as ${session.username}` : 'Signed in';
  $('who').hidden = false;
  const device = session.device;
  if (device && device.userId === session.userId) {
    showMode(device.platform);
    if (device.platform === 'direct') startListening();
    // A push subscription the browser rotated while no page was open: register the new one.
    if (device.platform === 'webpush') sp.syncSubscription({ serviceWorker: registration ?? undefined });
  } else {
    $('mode').hidden = true;
  }
  await refreshList();
  await openFromHash();
}

function showMode(platform) {
  const mode = $('mode');
  mode.textContent = platform === 'webpush' ? WEB_PUSH_MODE : DIRECT_MODE;
  mode.hidden = false;
}

function clearInbox() {
  items = [];
  nextCursor = null;
  selectedId = null;
  plaintexts.clear();
  $('notifications').replaceChildren();
  $('empty').hidden = true;
  $('more').hidden = true;
  $('mode').hidden = true;
  $('connection').hidden = true;
  $('message-panel').hidden = true;
  $('message').textContent = '';
  delete $('message').dataset.notificationId;
  $('message-meta').replaceChildren();
  $('message-note').hidden = true;
}

// MARK: - List

function itemState(item) {
  if (item.gone) return `Read once${item.readAt ? ` (${formatTime(item.readAt)})` : ''}: erased from the server`;
  if (item.readAt) return `Read ${formatTime(item.readAt)}`;
  return 'Unread';
}

function renderList() {
  const list = $('notifications');
  const rows = items.map((item) => {
    const li = document.createElement('li');
    const button = document.createElement('button');
    button.type = 'button';
    button.dataset.notificationId = item.notificationId;
    if (!item.readAt && !item.gone) button.classList.add('unread');
    if (item.notificationId === selectedId) button.setAttribute('aria-current', 'true');
    const when = document.createElement('span');
    when.className = 'when';
    when.textContent = `Message of ${formatTime(item.createdAt)}`;
    const state = document.createElement('span');
    state.className = 'state';
    state.textContent = itemState(item) + (plaintexts.has(item.notificationId) ? ' · opened here' : '');
    button.append(when, state);
    button.addEventListener('click', () => openNotification(item.notificationId, { focus: true }));
    li.append(button);
    return li;
  });
  list.replaceChildren(...rows);
  $('empty').hidden = items.length > 0;
  $('more').hidden = !nextCursor;
}

async function refreshList({ more = false } = {}) {
  try {
    const page = await sp.list({ limit: PAGE_SIZE, ...(more && nextCursor ? { cursor: nextCursor } : {}) });
    const fetched = Array.isArray(page?.items) ? page.items : [];
    if (more) {
      const known = new Set(items.map((i) => i.notificationId));
      items = items.concat(fetched.filter((i) => !known.has(i.notificationId)));
    } else {
      // Keep ids that arrived on a channel but are not listed yet (a race with the store).
      const listed = new Set(fetched.map((i) => i.notificationId));
      const extra = items.filter((i) => i.local && !listed.has(i.notificationId));
      items = extra.concat(fetched);
    }
    nextCursor = page?.nextCursor ?? null;
    renderList();
  } catch (error) {
    if (sessionEnded(error)) {
      showSignIn();
      setStatus('Your session ended. Sign in again.', 'error');
      return;
    }
    setStatus(`Could not load the list: ${explain(error)}`, 'error');
  }
}

function addToList(notificationId, fields = {}) {
  if (!items.some((i) => i.notificationId === notificationId)) {
    items.unshift({ notificationId, createdAt: fields.createdAt ?? new Date().toISOString(), local: true, ...fields });
  }
  renderList();
}

// MARK: - Opening

function showMessage(notificationId, opened, { focus = false, note = '' } = {}) {
  selectedId = notificationId;
  const panel = $('message-panel');
  panel.hidden = false;
  const message = $('message');
  message.textContent = opened?.payload ?? '';
  message.dataset.notificationId = notificationId;

  const meta = $('message-meta');
  const rows = [];
  const add = (term, value) => {
    if (!value) return;
    const dt = document.createElement('dt');
    dt.textContent = term;
    const dd = document.createElement('dd');
    dd.textContent = value;
    rows.push(dt, dd);
  };
  const listed = items.find((i) => i.notificationId === notificationId);
  add('Received', formatTime(opened?.createdAt ?? listed?.createdAt));
  add('Expires', formatTime(opened?.expiresAt ?? listed?.expiresAt));
  add('Read', formatTime(opened?.readAt ?? listed?.readAt));
  if (opened && 'sealed' in opened) {
    add('Encryption', opened.sealed ? 'Sealed to this browser; decrypted here' : 'Not sealed (server-readable copy)');
  }
  meta.replaceChildren(...rows);

  const noteElement = $('message-note');
  let text = note;
  if (!text && listed?.gone) text = 'Read once: this message is now erased from the server; only this page still shows it.';
  noteElement.textContent = text;
  noteElement.hidden = !text;
  renderList();
  if (focus) panel.focus();
}

async function openNotification(notificationId, { focus = false } = {}) {
  if (plaintexts.has(notificationId)) {
    showMessage(notificationId, plaintexts.get(notificationId), { focus });
    setStatus('Message opened.', 'ok');
    return;
  }
  setStatus('Opening the message…');
  try {
    const opened = await sp.open(notificationId);
    plaintexts.set(notificationId, opened);
    showMessage(notificationId, opened, { focus });
    setStatus('Message opened.', 'ok');
    try {
      await sp.markRead(notificationId);
    } catch {
      // a read-once message is erased already; marking it is not needed
    }
    await refreshList();
    showMessage(notificationId, opened);
  } catch (error) {
    if (sessionEnded(error)) {
      showSignIn();
      setStatus('Your session ended. Sign in again.', 'error');
      return;
    }
    let note = explain(error);
    if (error instanceof SecurePushError && error.code === ErrorCodes.gone) {
      note = `This message was already read${error.data?.readAt ? ` (${formatTime(error.data.readAt)})` : ''}. It could be read once and is no longer on the server.`;
    }
    showMessage(notificationId, null, { focus, note });
    setStatus(note, 'error');
    await refreshList();
  }
}

async function openFromHash() {
  let id;
  try {
    id = decodeURIComponent(location.hash.slice(1));
  } catch {
    return; // a malformed hash (say "#%E0%A4%A"): nothing to open
  }
  if (id && /^[0-9A-Za-z-]{1,128}$/.test(id) && sp?.isSignedIn()) await openNotification(id);
}

// MARK: - Notifications on this browser

function startListening() {
  if (listener) return;
  const connection = $('connection');
  const handle = sp.listen({
    onState(state) {
      if (listener !== handle) return; // a stream stopped by sign-out: nothing to show
      connection.textContent = state.message;
      connection.hidden = false;
      if (state.state === 'stopped') {
        listener = null;
        if (state.error && sessionEnded(state.error)) {
          showSignIn();
          setStatus('Your session ended. Sign in again.', 'error');
        } else if (state.error) {
          setStatus(`The direct channel stopped: ${state.reason}`, 'error');
        }
      }
    },
    onNotification(result) {
      if (listener !== handle) return;
      if (result.error) {
        addToList(result.notificationId);
        setStatus(`A new message arrived but could not be opened: ${explain(result.error)}`, 'error');
        refreshList();
        return;
      }
      plaintexts.set(result.notificationId, result);
      addToList(result.notificationId, { createdAt: result.createdAt, expiresAt: result.expiresAt });
      showMessage(result.notificationId, result);
      setStatus('New message received.', 'ok');
      refreshList().then(() => {
        if (selectedId === result.notificationId) showMessage(result.notificationId, result);
      });
    },
  });
  listener = handle;
}

function stopListening() {
  listener?.stop();
  listener = null;
}

async function registerWorker() {
  if (!('serviceWorker' in navigator)) return null;
  try {
    const scope = new URL('./', location.href).pathname;
    return await navigator.serviceWorker.register(new URL('./securepush-sw.js', location.href).pathname, {
      type: 'module',
      scope,
    });
  } catch {
    return null; // no module service workers here: the direct channel still works
  }
}

function onWorkerMessage(event) {
  const data = event.data;
  if (!data || typeof data !== 'object' || typeof data.notificationId !== 'string') return;
  if (data.type === 'securepush-push' && typeof data.payload === 'string') {
    const opened = { notificationId: data.notificationId, payload: data.payload, sealed: true };
    plaintexts.set(data.notificationId, opened);
    addToList(data.notificationId);
    showMessage(data.notificationId, opened);
    setStatus('New message received.', 'ok');
    refreshList();
  } else if (data.type === 'securepush-open') {
    openNotification(data.notificationId, { focus: true });
  }
}

// MARK: - Wiring

async function onSignIn(event) {
  event.preventDefault();
  const username = $('username').value.trim();
  const password = $('password').value;
  if (!username || !password) {
    setStatus('Enter your username and password.', 'error');
    (username ? $('password') : $('username')).focus();
    return;
  }
  await busy($('sign-in'), async () => {
    setStatus('Signing in…');
    try {
      await sp.signIn({ username, password });
      $('password').value = '';
      setStatus(`Signed in as ${username}.`, 'ok');
      await showApp();
      $('enable').focus();
    } catch (error) {
      setStatus(`Sign-in failed. ${explain(error)}`, 'error');
      $('password').focus();
    }
  });
}

async function onEnable() {
  await busy($('enable'), async () => {
    setStatus('Turning on notifications for this browser…');
    try {
      const result = await sp.enableNotifications({ serviceWorker: registration ?? undefined });
      showMode(result.platform);
      if (result.platform === 'direct') startListening();
      else stopListening();
      setStatus(result.platform === 'webpush' ? WEB_PUSH_MODE : DIRECT_MODE, 'ok');
    } catch (error) {
      if (sessionEnded(error)) {
        showSignIn();
        setStatus('Your session ended. Sign in again.', 'error');
        return;
      }
      setStatus(`Could not turn on notifications: ${explain(error)}`, 'error');
    }
  });
}

async function onSignOut() {
  await busy($('sign-out'), async () => {
    stopListening();
    setStatus('Signing out…');
    try {
      await sp.signOut();
    } catch {
      // signOut cleans up locally whatever the servers say
    }
    showSignIn();
    setStatus('Signed out. This browser no longer receives your notifications.', 'ok');
    $('username').focus();
  });
}

async function main() {
  let config;
  try {
    const response = await fetch(new URL('./config.json', location.href), { cache: 'no-store' });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    config = await response.json();
  } catch (error) {
    setStatus(`Cannot load the inbox configuration (config.json): ${explain(error)}`, 'error');
    return;
  }
  try {
    sp = await SecurePush.create({
      authURL: config.authURL,
      storeURL: config.storeURL,
      dispatchURL: config.dispatchURL || location.origin,
      ...(config.appId ? { appId: config.appId } : {}),
    });
  } catch (error) {
    setStatus(`This browser cannot run the inbox: ${explain(error)}`, 'error');
    return;
  }
  registration = await registerWorker();
  navigator.serviceWorker?.addEventListener('message', onWorkerMessage);
  $('sign-in-form').addEventListener('submit', onSignIn);
  $('enable').addEventListener('click', onEnable);
  $('sign-out').addEventListener('click', onSignOut);
  $('refresh').addEventListener('click', () => busy($('refresh'), () => refreshList()));
  $('more').addEventListener('click', () => busy($('more'), () => refreshList({ more: true })));
  window.addEventListener('hashchange', openFromHash);
  if (sp.isSignedIn()) {
    setStatus('Signed in.');
    await showApp();
  } else {
    showSignIn();
    setStatus('Sign in to read your secure messages.');
  }
}

main();
