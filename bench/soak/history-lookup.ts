import pg from 'pg';
import { messageId, soakDevice } from './config.js';
import type { Finding } from './verdict.js';

/** At most this many distinct readings are looked up (one query, a scan of the soak's history). */
const LOOKUP_LIMIT = 5000;

/**
 * Where the wrong readings are in the database history: a missing reading that is stored was
 * accepted by the hub and lost on its way to the subscriber; one that is not was never accepted.
 * Returns the summary lines, per msgId the seqs it is stored under, and the msgIds the throttle may
 * have replaced by design: the device's next stored reading reached the hub within
 * `throttleIntervalMs` after it, and the one before within two intervals before it.
 */
export async function lookUpHistory(
  url: string,
  findings: readonly Finding[],
  throttleIntervalMs: number,
): Promise<{
  lines: string[];
  seqs: Map<string, number[]>;
  nextWithinInterval: Set<string>;
  /** Per reading looked up: ms from the previous stored reading of its device to it, and from it to the next (the throttle's evidence). */
  spacing: Map<string, { prevMs: number | null; nextMs: number | null }>;
}> {
  const ids = [...new Set(findings.map((f) => messageId(soakDevice(f.device), f.n)))].slice(0, LOOKUP_LIMIT);
  const seqs = new Map<string, number[]>();
  const nextWithinInterval = new Set<string>();
  const spacing = new Map<string, { prevMs: number | null; nextMs: number | null }>();
  if (ids.length === 0) return { lines: [], seqs, nextWithinInterval, spacing };
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // With each stored reading, how long after it the device's next stored reading reached the hub,
    // and how long before it the previous one did.
    const { rows } = await client.query<{
      msg_id: string;
      seq: string;
      next_ms: number | null;
      prev_ms: number | null;
    }>(
      `select r.data->>'msgId' as msg_id, r.seq,
         extract(epoch from (n.received_at - r.received_at))::float8 * 1000 as next_ms,
         extract(epoch from (r.received_at - p.received_at))::float8 * 1000 as prev_ms
       from readings r
       left join lateral (
         select x.received_at from readings x
         where x.tenant_id = r.tenant_id and x.device_id = r.device_id and x.seq > r.seq
         order by x.seq limit 1
       ) n on true
       left join lateral (
         select x.received_at from readings x
         where x.tenant_id = r.tenant_id and x.device_id = r.device_id and x.seq < r.seq
         order by x.seq desc limit 1
       ) p on true
       where r.data->>'msgId' = any($1::text[])`,
      [ids],
    );
    for (const r of rows) {
      seqs.set(r.msg_id, [...(seqs.get(r.msg_id) ?? []), Number(r.seq)]);
      spacing.set(r.msg_id, { prevMs: r.prev_ms, nextMs: r.next_ms });
      // The throttle holds a reading back only when the device emitted within the interval before
      // it (so an earlier reading arrived within two intervals), and replaces it only with one that
      // arrives before that interval ends.
      if (
        r.next_ms !== null &&
        r.next_ms <= throttleIntervalMs &&
        r.prev_ms !== null &&
        r.prev_ms <= 2 * throttleIntervalMs
      )
        nextWithinInterval.add(r.msg_id);
    }
  } finally {
    await client.end();
  }
  const lines: string[] = [];
  for (const kind of ['missing', 'duplicated', 'out of order'] as const) {
    const of = [...new Set(findings.filter((f) => f.kind === kind).map((f) => messageId(soakDevice(f.device), f.n)))];
    if (of.length === 0) continue;
    const looked = of.filter((id) => ids.includes(id));
    const stored = looked.filter((id) => seqs.has(id));
    const twice = looked.filter((id) => (seqs.get(id)?.length ?? 0) > 1);
    lines.push(
      `history, ${kind}: ${looked.length} distinct readings looked up, ${stored.length} stored${twice.length ? `, ${twice.length} stored under two seqs or more (e.g. ${twice[0]}: seq ${seqs.get(twice[0]!)!.join(', ')})` : ''}`,
    );
  }
  return { lines, seqs, nextWithinInterval, spacing };
}
