/**
 * A final, unmasked WebSocket text frame around `payload` (RFC 6455 §5.2: servers never mask),
 * built once and written to many sockets as is: ws's "frame once, send to many".
 */
export function textFrame(payload: Buffer): Buffer {
  return unmaskedFrame(0x81, payload); // FIN + opcode 1 (text)
}

/** The same for a binary frame (opcode 2). */
export function binaryFrame(payload: Buffer): Buffer {
  return unmaskedFrame(0x82, payload); // FIN + opcode 2 (binary)
}

function unmaskedFrame(first: number, payload: Buffer): Buffer {
  const n = payload.length;
  const header = n < 126 ? 2 : n < 65_536 ? 4 : 10;
  const frame = Buffer.allocUnsafe(header + n);
  frame[0] = first;
  if (n < 126) {
    frame[1] = n;
  } else if (n < 65_536) {
    frame[1] = 126;
    frame.writeUInt16BE(n, 2);
  } else {
    frame[1] = 127;
    frame.writeBigUInt64BE(BigInt(n), 2);
  }
  payload.copy(frame, header);
  return frame;
}
