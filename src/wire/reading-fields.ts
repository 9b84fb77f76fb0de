import type { OutboundMessage } from './message.js';

/** The seq of a reading message; undefined for any other message. */
export function readingSeq(message: OutboundMessage): number | undefined {
  if (message.kind !== 'reading') return undefined;
  const seq = (message.data as { seq?: unknown } | null)?.seq;
  return typeof seq === 'number' ? seq : undefined;
}

/** The device group a reading message goes to (live or replayed); undefined for any other message. */
export function readingGroup(message: OutboundMessage): string | undefined {
  return message.kind === 'reading' && message.source.kind === 'group' ? message.source.group : undefined;
}
