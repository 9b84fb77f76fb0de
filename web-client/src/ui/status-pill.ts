import type { ConnectionMode, ConnectionState } from '../connection/live-connection';

const LABEL: Record<ConnectionState, string> = {
  connected: 'Connected',
  reconnecting: 'Reconnecting…',
  offline: 'Offline',
};

const MODE: Record<ConnectionMode, string> = { socket: 'Socket', serverless: 'Serverless' };

/** Connection state as text plus a shape-coded dot, announced politely when it changes. */
export class StatusPill {
  readonly root: HTMLElement;
  private readonly text: HTMLElement;
  private current = '';

  constructor() {
    this.root = document.createElement('div');
    this.root.className = 'pill';
    this.root.setAttribute('role', 'status');
    this.root.setAttribute('aria-live', 'polite');
    this.root.setAttribute('aria-atomic', 'true');
    this.root.innerHTML = '<span class="pill-dot" aria-hidden="true"></span><span class="pill-text"></span>';
    this.text = this.root.querySelector('.pill-text') as HTMLElement;
  }

  set(state: ConnectionState, mode: ConnectionMode, detail: string, everConnected: boolean): void {
    const label = state === 'reconnecting' && !everConnected ? 'Connecting…' : LABEL[state];
    const text = `${label} · ${MODE[mode]}`;
    this.root.dataset.state = state;
    // Details (error codes) go to the tooltip only: re-announcing every retry would be noise.
    this.root.title = detail ? `${text} (${detail})` : text;
    if (text !== this.current) {
      this.current = text;
      this.text.textContent = text;
    }
  }
}
