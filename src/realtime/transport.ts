import type { CloseReason } from '../wire/message.js';

/**
 * The socket under a TransportConnection: what the socket.io and Web PubSub adapters implement.
 * Frames arrive encoded (one encoding per codec and message, shared by every member of a group),
 * so a transport only writes, reports when it is full, and closes.
 */
export interface Transport<F> {
  /**
   * Writes one frame. True: accepted, send more. False: accepted (or dropped: the socket is gone,
   * there is no one left to deliver to) and now full; the connection holds what follows until
   * the drain listener runs.
   */
  write(frame: F): boolean;
  /** The one listener a full transport calls once it can take more. */
  onDrain(listener: () => void): void;
  /** Ends the socket, telling the client why in its protocol (a close code, a `hub_closed` event). */
  close(reason: CloseReason): void;
  /** What the socket holds that the client has not taken yet, in the transport's unit (bytes or packets). */
  readonly bufferedAmount: number;
}
