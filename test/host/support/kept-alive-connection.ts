import { connect, type Socket } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * One kept-alive HTTP/1.1 connection: requests are written as they are sent and responses are
 * read in order. Lets a test send on a connection the server already holds while it drains.
 */
export class KeptAliveConnection {
  readonly #socket: Socket;
  #buffer = Buffer.alloc(0);
  readonly #parsed: RawResponse[] = [];
  readonly #waiters: (() => void)[] = [];
  closed = false;

  private constructor(socket: Socket) {
    this.#socket = socket;
    socket.on('data', (chunk: Buffer) => {
      this.#buffer = Buffer.concat([this.#buffer, chunk]);
      this.#parse();
    });
    socket.on('close', () => {
      this.closed = true;
      this.#wake();
    });
    socket.on('error', () => undefined);
  }

  static open(url: string): Promise<KeptAliveConnection> {
    const { hostname, port } = new URL(url);
    return new Promise((resolve, reject) => {
      const socket = connect({ host: hostname === 'localhost' ? '127.0.0.1' : hostname, port: Number(port) }, () =>
        resolve(new KeptAliveConnection(socket)),
      );
      socket.once('error', reject);
    });
  }

  send(method: string, path: string): void {
    this.write(`${method} ${path} HTTP/1.1\r\nhost: test\r\nconnection: keep-alive\r\n\r\n`);
  }

  /** Raw bytes: a request written in parts keeps the connection busy (not idle) in between. */
  write(raw: string): void {
    this.#socket.write(raw);
  }

  /** The n-th response on this connection (0-based); rejects when the connection closes first. */
  async response(n: number): Promise<RawResponse> {
    while (this.#parsed.length <= n) {
      if (this.closed) throw new Error(`connection closed after ${this.#parsed.length} responses`);
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
    return this.#parsed[n]!;
  }

  destroy(): void {
    this.#socket.destroy();
  }

  #wake(): void {
    for (const w of this.#waiters.splice(0)) w();
  }

  #parse(): void {
    for (;;) {
      const end = this.#buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      const [statusLine, ...lines] = this.#buffer.subarray(0, end).toString('latin1').split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const i = line.indexOf(':');
        headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
      }
      const length = Number(headers['content-length'] ?? '0');
      if (this.#buffer.length < end + 4 + length) return;
      const body = this.#buffer.subarray(end + 4, end + 4 + length).toString('utf8');
      this.#buffer = this.#buffer.subarray(end + 4 + length);
      this.#parsed.push({ status: Number(statusLine!.split(' ')[1]), headers, body });
      this.#wake();
    }
  }
}
