import { connect, type Socket } from 'node:net';

/** What a raw TCP client saw: every byte received, and how the connection ended. */
export interface RawOutcome {
  received: Buffer;
  /** 'end' = the server closed gracefully (FIN); 'error' = reset or another socket error. */
  ended: 'end' | 'error';
  error: (Error & { code?: string }) | undefined;
  /** The first complete HTTP response in `received`, if there is one. */
  response: ParsedResponse | undefined;
}

export interface ParsedResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Opens a raw TCP connection to `url`'s host and port, lets `drive` write whatever it wants (it may keep
 * writing while the answer arrives), and resolves when the connection ends, or after `timeoutMs`.
 */
export function rawExchange(url: string, drive: (socket: Socket) => void, timeoutMs = 15_000): Promise<RawOutcome> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    let error: (Error & { code?: string }) | undefined;
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new Error(
          `connection still open after ${timeoutMs} ms; received: ${Buffer.concat(chunks).toString('latin1').slice(0, 300)}`,
        ),
      );
    }, timeoutMs);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', (err) => (error = err));
    socket.on('close', () => {
      clearTimeout(timer);
      const received = Buffer.concat(chunks);
      resolve({ received, ended: error ? 'error' : 'end', error, response: parseResponse(received) });
    });
    socket.once('connect', () => drive(socket));
  });
}

/** Parses one HTTP/1.1 response with a content-length; undefined when incomplete. */
export function parseResponse(bytes: Buffer): ParsedResponse | undefined {
  const text = bytes.toString('latin1');
  const headEnd = text.indexOf('\r\n\r\n');
  if (headEnd < 0) return undefined;
  const [statusLine, ...lines] = text.slice(0, headEnd).split('\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine!)?.[1]);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length']);
  const body = bytes.subarray(headEnd + 4);
  if (!Number.isFinite(length) || body.length < length) return undefined;
  return { status, headers, body: body.subarray(0, length).toString('utf8') };
}
