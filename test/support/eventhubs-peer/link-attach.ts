import type { Receiver, Sender } from 'rhea';

/** The parts of a client's attach the peer reads; rhea's typings do not expose `remote.attach`. */
interface RemoteAttach {
  remote: {
    attach: {
      source?: { address?: string; filter?: unknown };
      target?: { address?: string };
      properties?: Record<string, unknown>;
    };
  };
  local: { attach: { max_message_size?: number } };
}

const attachOf = (link: Sender | Receiver): RemoteAttach => link as unknown as RemoteAttach;

export function sourceOf(link: Sender | Receiver): { address: string; filter?: unknown } {
  const source = attachOf(link).remote.attach.source;
  return { address: String(source?.address ?? ''), filter: source?.filter };
}

export function targetAddressOf(link: Sender | Receiver): string {
  return String(attachOf(link).remote.attach.target?.address ?? '');
}

export function linkProperty(link: Sender | Receiver, name: string): unknown {
  return attachOf(link).remote.attach.properties?.[name] ?? undefined;
}

/**
 * Completes the attach reply before rhea writes it (it does so on the next tick): echo the terminus, since
 * a null one tells the client the link was refused, and announce a max message size, which the SDK's
 * producer reads to size its batches.
 */
export function acceptAttach(link: Sender | Receiver, maxMessageSize: number): void {
  const { source, target } = attachOf(link).remote.attach;
  if (source) link.set_source({ address: source.address, filter: source.filter } as never);
  if (target) link.set_target({ address: target.address } as never);
  attachOf(link).local.attach.max_message_size = maxMessageSize;
}

export function refuse(link: Sender | Receiver, condition: string, description: string): void {
  link.close({ condition, description });
}
