import pg from 'pg';
import { messageId, soakDevice } from './config.js';
import type { Finding } from './verdict.js';

/** At most this many distinct readings are looked up (one query, a scan of the soak's history). */
const LOOKUP_LIMIT = 5000;

/**
 * Where the wrong readings are in the database history: a missing reading that is stored was
 * accepted by the hub and lost on its way to the subscriber; one that is not was never accepted.
 * Returns the summary lines and, per msgId, the seqs it is stored under.
 */
export async function lookUpHistory(
  url: string,
  findings: readonly Finding[],
): Promise<{ lines: string[]; seqs: Map<string, number[]> }> {
  const ids = [...new Set(findings.map((f) => messageId(soakDevice(f.device), f.n)))].slice(0, LOOKUP_LIMIT);
  const seqs = new Map<string, number[]>();
  if (ids.length === 0) return { lines: [], seqs };
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ msg_id: string; seq: string }>(
      `select data->>'msgId' as msg_id, seq from readings where data->>'msgId' = any($1::text[])`,
      [ids],
    );
    for (const r of rows) seqs.set(r.msg_id, [...(seqs.get(r.msg_id) ?? []), Number(r.seq)]);
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
  return { lines, seqs };
}
