import type { WebPubSubClientProtocol } from '@azure/web-pubsub-client';

/**
 * Wraps a Web PubSub subprotocol to report every `connected` frame. The client's own `connected` event fires
 * only for a brand-new connection, not after its reliable-protocol recovery; if a hub answers a recovery with
 * a new connection id (its groups gone), only the frame tells us to subscribe again.
 */
export function tapConnectedFrames(
  inner: WebPubSubClientProtocol,
  onConnected: (connectionId: string) => void,
): WebPubSubClientProtocol {
  return {
    name: inner.name,
    isReliableSubProtocol: inner.isReliableSubProtocol,
    writeMessage: (message) => inner.writeMessage(message),
    parseMessages(input) {
      const parsed = inner.parseMessages(input);
      for (const m of Array.isArray(parsed) ? parsed : parsed ? [parsed] : []) {
        if (m.kind === 'connected') onConnected(m.connectionId);
      }
      return parsed;
    },
  };
}
