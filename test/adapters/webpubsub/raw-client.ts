import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { WebSocket } from 'ws';

/** A bare `ws` client that records every frame it receives, decoded by `decode`. */
export interface FrameRecorder<F> {
  readonly ws: WebSocket;
  readonly frames: F[];
  readonly closed: Promise<{ code: number; reason: string }>;
  /** Resolves with the first recorded frame (past or future) matching `predicate`. */
  next(predicate: (frame: F) => boolean, timeoutMs?: number): Promise<F>;
}

export async function openRecorder<F>(
  url: string,
  protocol: string | string[] | undefined,
  decode: (data: Buffer, isBinary: boolean) => F,
): Promise<FrameRecorder<F>> {
  const ws = new WebSocket(url, protocol);
  const frames: F[] = [];
  const waiters = new Set<() => boolean>();
  ws.on('message', (data: Buffer, isBinary) => {
    frames.push(decode(data, isBinary));
    for (const w of [...waiters]) w();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { res })));
  });
  return {
    ws,
    frames,
    closed,
    next(predicate, timeoutMs = 5000) {
      return new Promise((resolve, reject) => {
        const check = (): boolean => {
          const found = frames.find(predicate);
          if (found === undefined) return false;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching frame; got ${JSON.stringify(frames)}`));
        }, timeoutMs);
        if (!check()) waiters.add(check);
      });
    },
  };
}

/** A bare `ws` client of the JSON subprotocols, for protocol-level assertions. */
export interface RawClient extends FrameRecorder<Record<string, unknown>> {
  send(frame: object): void;
}

export async function openRaw(url: string, protocol?: string | string[]): Promise<RawClient> {
  const recorder = await openRecorder(url, protocol, (data, isBinary) =>
    isBinary ? { binary: data } : (tryParse(data.toString()) ?? { raw: data.toString() }),
  );
  return { ...recorder, send: (frame) => recorder.ws.send(JSON.stringify(frame)) };
}

function tryParse(text: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** A WebSocket handshake done by hand over a bare TCP socket, which then answers nothing (not even pings). */
export async function rawHandshake(
  port: number,
  pathAndQuery: string,
  protocol: string,
): Promise<{ socket: Socket; received: Buffer[]; closed: Promise<void> }> {
  const socket = connect(port, '127.0.0.1');
  const received: Buffer[] = [];
  socket.on('data', (d: Buffer) => received.push(d));
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  socket.write(
    [
      `GET ${pathAndQuery} HTTP/1.1`,
      `Host: 127.0.0.1:${port}`,
      'Upgrade: websocket',
      'Connection: Upgrade',
      `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`,
      'Sec-WebSocket-Version: 13',
      `Sec-WebSocket-Protocol: ${protocol}`,
      '',
      '',
    ].join('\r\n'),
  );
  return { socket, received, closed };
}

/** A client-to-server text frame (FIN, opcode 1, masked, payload < 126 bytes). */
export function maskedTextFrame(payload: Buffer): Buffer {
  const mask = randomBytes(4);
  const masked = Buffer.from(payload.map((b, i) => b ^ mask[i % 4]!));
  return Buffer.concat([Buffer.from([0x81, 0x80 | payload.length]), mask, masked]);
}
