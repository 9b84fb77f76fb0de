import type { Connection } from 'rhea';

type FrameHandler = (this: unknown, frame: { channel: number; performative: { handle?: number } }) => void;
interface RheaInternals {
  remote_channel_map: Record<number, { remote: { handles: Record<number, unknown> } } | undefined>;
  on_disposition: FrameHandler;
  on_flow: FrameHandler;
  on_transfer: FrameHandler;
}

/**
 * When a client closes a receiver, rhea (in the SDK) may still settle prefetched messages or grant credit
 * on the session it just ended, racing the peer's `end`. The service ignores such late frames; rhea as a
 * server throws a ProtocolError and drops the whole connection, which then hangs the SDK's close. This
 * makes the peer's connection ignore frames for channels and links it already forgot, like the service.
 */
export function tolerateLateFrames(connection: Connection): void {
  const internals = connection as unknown as RheaInternals;
  for (const name of ['on_disposition', 'on_flow', 'on_transfer'] as const) {
    const original = internals[name];
    internals[name] = function (frame) {
      const session = internals.remote_channel_map[frame.channel];
      if (!session) return;
      const handle = frame.performative.handle;
      if (name !== 'on_disposition' && handle !== undefined && !session.remote.handles[handle]) return;
      original.call(this, frame);
    };
  }
}
