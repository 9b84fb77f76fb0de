/** Recent problems (refused subscriptions, sign-in), newest first, each shown for a while then dropped. */
export class Notices {
  readonly root: HTMLElement;
  private readonly shown = new Map<string, HTMLElement>();

  constructor(
    private readonly max = 3,
    private readonly ttlMs = 20_000,
  ) {
    this.root = document.createElement('ul');
    this.root.className = 'notices';
    this.root.setAttribute('aria-live', 'polite');
    this.root.setAttribute('aria-label', 'Notices');
  }

  /** Same `key` twice only refreshes the existing notice: a retry loop must not flood the screen. */
  show(key: string, text: string, sticky = false): void {
    let li = this.shown.get(key);
    if (!li) {
      li = document.createElement('li');
      this.shown.set(key, li);
    }
    li.textContent = text;
    this.root.prepend(li);
    while (this.root.children.length > this.max) this.drop(this.root.lastElementChild as HTMLElement);
    window.clearTimeout(Number(li.dataset.timer));
    if (!sticky) li.dataset.timer = String(window.setTimeout(() => this.drop(li), this.ttlMs));
  }

  private drop(li: HTMLElement): void {
    for (const [k, v] of this.shown) if (v === li) this.shown.delete(k);
    li.remove();
  }
}
