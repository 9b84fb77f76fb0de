// Issue 27 item 4: the `external-api` check. A dependency the process serves without goes away for
// real (an OTLP receiver closed, a hub process stopped): /health/ready stays 200, status Degraded.
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/app-harness.js';
import { GATEWAY_MAIN, startChildHub, type ChildHub } from '../support/child-hub.js';
import { ACCESS_KEY, startHubProcess } from '../support/hub-stamps.js';
import { OtlpReceiver } from '../support/otlp-receiver.js';

interface Report {
  status: string;
  checks: { name: string; status: string; description?: string }[];
}

async function ready(url: string): Promise<{ code: number; report: Report }> {
  const res = await fetch(`${url}/health/ready`);
  return { code: res.status, report: (await res.json()) as Report };
}

const externalApi = (report: Report) => report.checks.find((c) => c.name === 'external-api');

describe('Degraded health: the external-api check (real processes, real dependencies going away)', () => {
  const stops: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const stop of stops.reverse()) await stop();
  });

  it('a hub whose OTLP collector goes away answers ready 200 Degraded, external-api Degraded; back to Healthy when it returns', async () => {
    let receiver = await OtlpReceiver.start();
    stops.push(() => receiver.close());
    const port = new URL(receiver.url).port;
    const hub = await startHubProcess([`--Telemetry:Otlp:Endpoint=${receiver.url}`, '--Health:CheckTimeoutSeconds=1']);
    stops.push(() => hub.stop());

    const before = await ready(hub.url);
    expect(before.code).toBe(200);
    expect(before.report.status).toBe('Healthy');
    expect(externalApi(before.report)?.status).toBe('Healthy');

    await receiver.close();
    const after = await ready(hub.url);
    expect(after.code).toBe(200);
    expect(after.report.status).toBe('Degraded');
    expect(externalApi(after.report)).toMatchObject({
      status: 'Degraded',
      description: expect.stringContaining('otlp'),
    });
    // Everything else is as it was: only the optional dependency is missing.
    expect(after.report.checks.filter((c) => c.name !== 'external-api').every((c) => c.status === 'Healthy')).toBe(
      true,
    );

    // The collector returns on the same port.
    receiver = await OtlpReceiver.start(Number(port));
    await eventually(async () => (await ready(hub.url)).report.status === 'Healthy', 5000, 'ready to be Healthy again');
  }, 60_000);

  it('a hub without an OTLP endpoint has no external-api check', async () => {
    const hub = await startHubProcess();
    stops.push(() => hub.stop());
    const { code, report } = await ready(hub.url);
    expect(code).toBe(200);
    expect(externalApi(report)).toBeUndefined();
  }, 60_000);

  it('a gateway whose stamp loses its only instance answers ready 200 Degraded, naming the stamp', async () => {
    const hub = await startHubProcess();
    stops.push(() => hub.stop());
    const gateway: ChildHub = await startChildHub(
      [
        '--environment=Development',
        '--Http:Port=0',
        `--Gateway:Stamps=pool=${hub.url}`,
        '--Gateway:Tenants=demo=pool',
        `--Hub:AccessKey=${ACCESS_KEY}`,
        '--Gateway:HealthIntervalSeconds=0.2',
      ],
      {},
      30_000,
      GATEWAY_MAIN,
    );
    stops.push(() => gateway.stop());

    const before = await ready(gateway.url);
    expect(before.code).toBe(200);
    expect(externalApi(before.report)?.status).toBe('Healthy');

    await hub.stop();
    await eventually(
      async () => (await ready(gateway.url)).report.status === 'Degraded',
      5000,
      'the gateway to be Degraded',
    );
    const after = await ready(gateway.url);
    expect(after.code).toBe(200);
    expect(externalApi(after.report)).toMatchObject({
      status: 'Degraded',
      description: expect.stringContaining('stamp pool: no ready instance'),
    });
  }, 60_000);
});
