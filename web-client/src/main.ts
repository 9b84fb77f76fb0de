import 'uplot/dist/uPlot.min.css';
import './styles.css';
import { listDevices } from './api/devices-api';
import { createHubClient } from './api/hub-client';
import { fetchSeries, seriesRows } from './api/series-api';
import { Session } from './auth/session';
import { hubTokenSource, SignInRequiredError, signInWithToken, signOut, type Credentials } from './auth/token-source';
import { createConnection } from './connection/create-connection';
import type { ConnectionMode, LiveConnection } from './connection/live-connection';
import { ClockOffset } from './state/clock-offset';
import { DeviceStore } from './state/device-store';
import { Interest } from './state/interest';
import { LIVE_WINDOW_MAX_MS, loadPreferences, savePreferences } from './state/preferences';
import { installTestHook } from './test-hook';
import { ChartPanel } from './ui/chart-panel';
import { createModeSwitch, createWindowSelect } from './ui/controls';
import { DeviceList } from './ui/device-list';
import { FrameLoop } from './ui/frame-loop';
import { Notices } from './ui/notices';
import { createSignInPanel, focusSignInPanel } from './ui/sign-in-panel';
import { StatusPill } from './ui/status-pill';

/** How often the whole device list is re-read: finds new devices and refreshes rows not subscribed live. */
const LIST_REFRESH_MS = 60_000;
/** One early re-read: right after a hub starts, devices that had not reported yet would otherwise wait 60 s. */
const FIRST_LIST_REFRESH_MS = 5_000;

// Composition root: build state, views and the connection, wire them, start the frame loop.
const storage = (() => {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
})();
/** Holds a pasted token only on hubs that cannot mint tokens (JWKS); per tab, gone when it closes. */
const tabStorage = (() => {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
})();
const prefs = loadPreferences(storage);
const session = new Session(hubTokenSource(tabStorage));
/** Every call to the public REST API, typed from its OpenAPI document and signed by the session. */
const api = createHubClient((url, init) => session.fetch(url, init));
const clock = new ClockOffset();
const store = new DeviceStore(prefs.windowMs);
const loop = new FrameLoop();
const pill = new StatusPill();
const notices = new Notices();

let connection: LiveConnection | null = null;
let tenantId = '';
/** Signed in: history can be fetched. */
let signedIn = false;
/** This mode has connected at least once (pill says "Connecting…" until then). */
let everConnected = false;
/** Any connection was up before: later connections are reconnects, for gap marking. */
let hadConnection = false;
const hubNow = () => clock.hubNow();

const interest = new Interest({
  subscribe: (id) => connection?.subscribe(id),
  unsubscribe: (id) => connection?.unsubscribe(id),
});

const list = new DeviceList({
  store,
  onToggle: (id) => toggleFollow(id),
  onVisibility: (id, visible) => interest.setInView(id, visible),
  isFollowed: (id) => interest.followed.has(id),
  hubNow,
});
const charts = new ChartPanel(store, (id) => {
  toggleFollow(id);
  // The card (and the focused button) is gone: put focus somewhere meaningful.
  list.focusRow(id);
});

function persist(): void {
  savePreferences(storage, { mode: prefs.mode, followed: [...interest.followed], windowMs: prefs.windowMs });
}

function toggleFollow(id: string): void {
  const on = !interest.followed.has(id);
  interest.setFollowed(id, on);
  list.setFollowed(id, on);
  if (on) {
    charts.add(id);
    void loadHistory(id);
  } else {
    charts.remove(id);
    store.unfollow(id);
  }
  persist();
}

/**
 * A window longer than the live one opens with the device's stored history (`series`, a few hundred buckets),
 * live readings appended after it. Refetched when the window changes; a failure leaves the live view as it is.
 */
async function loadHistory(id: string): Promise<void> {
  const windowMs = prefs.windowMs;
  const w = store.window(id);
  if (!signedIn || !w || windowMs <= LIVE_WINDOW_MAX_MS) return;
  const to = hubNow();
  try {
    const series = await fetchSeries(api, id, to - windowMs, to);
    // The device was unfollowed or the window changed meanwhile: this answer is for a view that is gone.
    if (store.window(id) !== w || prefs.windowMs !== windowMs) return;
    w.seedHistory(seriesRows(series));
  } catch (err) {
    notices.show(`history:${id}`, `No history for ${id}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

let connectAttempt = 0;

async function connect(mode: ConnectionMode): Promise<void> {
  const attempt = ++connectAttempt;
  connection?.close();
  connection = null;
  pill.set('reconnecting', mode, '', everConnected);
  let conn: LiveConnection;
  try {
    conn = await createConnection(mode, session, tenantId, (id) => {
      const seq = store.get(id)?.guard.lastSeq;
      return seq !== undefined && Number.isFinite(seq) ? seq : undefined;
    });
  } catch (err) {
    pill.set('offline', mode, 'could not load the client', everConnected);
    notices.show('load', `Could not load the ${mode} client: ${String(err)}`);
    return;
  }
  // The user switched again while the module loaded: the newer call owns the connection.
  if (attempt !== connectAttempt) return;
  connection = conn;
  conn.on('state', (state, detail) => {
    if (state === 'connected') {
      // Before the resubscribe acks arrive: the next reading of each device decides whether data was missed.
      // Not on the page's first connection: the REST snapshot before it is not a stream that was interrupted.
      if (hadConnection) store.markReconnect();
      hadConnection = true;
      everConnected = true;
    }
    pill.set(state, mode, detail, everConnected);
  });
  conn.on('reading', (r) => {
    if (!interest.wants(r.deviceId)) return;
    clock.sample(r.receivedAt);
    store.ingest(r);
  });
  conn.on('problem', (p) => {
    notices.show(
      `${p.code}:${p.deviceId ?? ''}`,
      p.deviceId ? `${p.deviceId}: ${p.message} (${p.code})` : `${p.message} (${p.code})`,
    );
  });
  conn.start();
  interest.rebind(conn);
}

/** Pages through every device; `initial` shows progress (later refreshes run quietly). */
async function loadAllDevices(initial: boolean): Promise<void> {
  let n = 0;
  try {
    for await (const page of listDevices(api)) {
      for (const d of page) store.upsertSummary(d);
      n += page.length;
      if (initial) list.setProgress(`Loading devices… ${n}`, true);
    }
    if (initial) list.setProgress('', false);
  } catch (err) {
    if (initial) list.setProgress(n ? '' : 'Could not load devices.', false);
    notices.show('devices', err instanceof Error ? err.message : String(err));
  }
}

function buildShell(): void {
  const header = document.createElement('header');
  header.className = 'top';
  header.innerHTML = `<h1>Telemetry Hub <span class="tenant"></span></h1><div class="controls"></div>`;
  const controls = header.querySelector('.controls') as HTMLElement;
  controls.append(
    createModeSwitch(prefs.mode, (mode) => {
      prefs.mode = mode;
      persist();
      everConnected = false;
      void connect(mode);
    }),
    createWindowSelect(prefs.windowMs, (ms) => {
      prefs.windowMs = ms;
      store.setWindowMs(ms, hubNow());
      persist();
      for (const id of interest.followed) void loadHistory(id);
    }),
    pill.root,
    createAccount(),
  );
  const main = document.createElement('main');
  main.append(list.root, charts.root);
  const app = document.getElementById('app') as HTMLElement;
  app.replaceChildren(header, notices.root, main);
}

/** "Signed in as …" and the sign-out button; shown once signed in with a session or a pasted token. */
function createAccount(): HTMLElement {
  const account = document.createElement('div');
  account.className = 'account';
  account.hidden = true;
  const who = document.createElement('span');
  who.className = 'who';
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'signout';
  button.textContent = 'Sign out';
  button.addEventListener('click', () => {
    button.disabled = true;
    connection?.close();
    signOut(tabStorage).then(
      // A fresh page: no state of the signed-out user survives, and it shows the sign-in panel.
      () => location.reload(),
      (err: unknown) => {
        button.disabled = false;
        notices.show('signout', err instanceof Error ? err.message : String(err));
      },
    );
  });
  account.append(who, button);
  return account;
}

function showAccount(credentials: Credentials): void {
  const account = document.querySelector('.account') as HTMLElement;
  // The development token speaks for a default user; there is no session to end.
  account.hidden = credentials.via !== 'session' && credentials.via !== 'token';
  const who = account.querySelector('.who') as HTMLElement;
  who.textContent = credentials.sub;
  who.title = `Signed in as ${credentials.sub}`;
  (account.querySelector('.signout') as HTMLElement).setAttribute('aria-label', `Sign out ${credentials.sub}`.trim());
}

/** Credentials from the token source, or, when it has none, from the sign-in panel once the user signs in there. */
async function signIn(): Promise<Credentials> {
  try {
    return await session.credentials();
  } catch (err) {
    pill.set('offline', prefs.mode, err instanceof SignInRequiredError ? 'sign-in required' : 'sign-in failed', false);
    const main = document.querySelector('main') as HTMLElement;
    const segmented = document.querySelector('.segmented') as HTMLFieldSetElement;
    segmented.disabled = true;
    return new Promise((resolve) => {
      // Not an empty list that looks like "no devices": say why nothing can be shown, and what to do.
      const panel = createSignInPanel(err, {
        onToken: async (token) => {
          const credentials = await signInWithToken(token, tabStorage);
          session.adopt(credentials);
          main.replaceChildren(list.root, charts.root);
          segmented.disabled = false;
          resolve(credentials);
        },
      });
      main.replaceChildren(panel);
      focusSignInPanel(panel);
    });
  }
}

async function boot(): Promise<void> {
  buildShell();
  loop.add(() => list.flush(hubNow()));
  loop.add(() => charts.flush(hubNow()));
  loop.start();
  installTestHook({
    state: () => connection?.state ?? 'offline',
    followed: () => [...interest.followed],
    frameStats: () => loop.stats(),
    resetFrameStats: () => loop.resetStats(),
    chartRows: (id) => {
      const ring = store.window(id)?.ring;
      return ring ? Array.from({ length: ring.length }, (_, i) => ring.timeAt(i)) : [];
    },
  });
  for (const id of prefs.followed) toggleFollowOn(id);
  list.setProgress('Signing in…', true);
  const credentials = await signIn();
  tenantId = credentials.tenantId;
  signedIn = true;
  for (const id of interest.followed) void loadHistory(id);
  showAccount(credentials);
  (document.querySelector('.tenant') as HTMLElement).textContent = tenantId;
  void connect(prefs.mode);
  await loadAllDevices(true);
  window.setTimeout(() => void loadAllDevices(false), FIRST_LIST_REFRESH_MS);
  window.setInterval(() => void loadAllDevices(false), LIST_REFRESH_MS);
}

/** Restores a followed device from preferences (no toggle: it may not be in the list yet). */
function toggleFollowOn(id: string): void {
  if (!interest.followed.has(id)) toggleFollow(id);
}

void boot();
