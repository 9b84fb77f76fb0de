import rhea, { type Message } from 'rhea';

/** Message format of an Event Hubs batch: one envelope whose data sections are encoded messages. */
export const BATCH_FORMAT = 0x80013700;

/**
 * The events inside one transfer. rhea decodes format-0 transfers itself; for the batch format it hands
 * over the raw bytes, so the envelope and each data section are decoded here. Sizes feed the offsets.
 */
export function unpackTransfer(
  message: Message | Buffer,
  format: number | undefined,
): { message: Message; size: number }[] {
  if (!Buffer.isBuffer(message)) return [{ message, size: 1 }];
  const envelope = rhea.message.decode(message) as unknown as Message;
  if (format !== BATCH_FORMAT) return [{ message: envelope, size: message.length }];
  const body = envelope.body as { multiple?: boolean; content?: unknown } | undefined;
  const sections = body?.multiple ? (body.content as Buffer[]) : body?.content ? [body.content as Buffer] : [];
  return sections.map((bytes) => {
    const inner = rhea.message.decode(bytes) as unknown as Message;
    // The producer puts the partition key on the envelope; keep it with each event.
    inner.message_annotations = { ...envelope.message_annotations, ...inner.message_annotations };
    return { message: inner, size: bytes.length };
  });
}
