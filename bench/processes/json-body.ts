/** The body every server of the HTTP benchmark answers `GET /bench/json` with. */
export const BENCH_JSON = { status: 'ok', service: 'telemetry-hub', version: 1, items: [1, 2, 3] } as const;
