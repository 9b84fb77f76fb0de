/** The body every server of the HTTP benchmark answers `GET /bench/json` with. */
export const BENCH_JSON = { status: 'ok', service: 'telemetry-hub', version: 1, items: [1, 2, 3] } as const;

/** The origin the HTTP benchmark's authenticated requests carry; the hub and the plugin anchor both allow it (CORS). */
export const BENCH_ORIGIN = 'http://127.0.0.1:5173';
