import { createRequire } from 'node:module';
import { serveParent } from '../harness/serve-parent.js';

/** The part of autocannon's result the HTTP benchmark reports (autocannon ships no types). */
interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}
type Autocannon = (options: {
  url: string;
  connections: number;
  duration: number;
  pipelining: number;
  headers?: Record<string, string>;
}) => Promise<AutocannonResult>;

const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

/** The HTTP load generator (autocannon@8, used programmatically) in its own process. */
serveParent({
  run: async (payload) => {
    const { url, connections, duration, headers } = payload as {
      url: string;
      connections: number;
      duration: number;
      headers?: Record<string, string>;
    };
    const r = await autocannon({ url, connections, duration, pipelining: 1, ...(headers ? { headers } : {}) });
    return {
      requestsPerSecond: r.requests.average,
      total: r.requests.total,
      p50: r.latency.p50,
      p99: r.latency.p99,
      non2xx: r.non2xx,
      errors: r.errors + r.timeouts,
    };
  },
});
