import { describe, expect, it } from 'vitest';
import { categoryLogger } from '../../src/host/logging.js';
import { captureLog } from './support/capture-log.js';
import { devConfig } from './support/test-config.js';
import { testServer } from './support/test-server.js';

describe('logging', () => {
  it('levels per category from Logging:LogLevel:<Category>; the most specific prefix wins', () => {
    const config = devConfig(
      '--Logging:LogLevel:Http=warn',
      '--Logging:LogLevel:Ingestion=debug',
      '--Logging:LogLevel:Ingestion.Mqtt=error',
    );
    const { log, logs } = captureLog(config);

    categoryLogger(log, config, 'Http').info('http info');
    categoryLogger(log, config, 'Http').warn('http warn');
    categoryLogger(log, config, 'Ingestion.EventHubs').debug('eventhubs debug');
    categoryLogger(log, config, 'Ingestion.Mqtt').warn('mqtt warn');
    categoryLogger(log, config, 'IngestionX').debug('not a sub-category');
    categoryLogger(log, config, 'Host').info('host info');

    expect(logs().map((l) => l.msg)).toEqual(['http warn', 'eventhubs debug', 'host info']);
    expect(logs()[0]).toMatchObject({ category: 'Http' });
  });

  it('never writes a secret: tokens, authorization, cookies, passwords and connection strings are redacted, also one level down', () => {
    const { log, text } = captureLog();

    log.info(
      { token: 'tok-1', accessToken: 'tok-2', headers: { authorization: 'Bearer tok-3', cookie: 'sid=tok-4' } },
      'top',
    );
    log.info(
      {
        client: { token: 'tok-5', password: 'tok-6' },
        source: { connectionString: 'Endpoint=sb://x;SharedAccessKey=tok-7' },
      },
      'nested',
    );

    for (const secret of ['tok-1', 'tok-2', 'tok-3', 'tok-4', 'tok-5', 'tok-6', 'tok-7'])
      expect(text()).not.toContain(secret);
    expect(text()).toContain('[redacted]');
  });

  it('one line per request with method, route template, status, duration and trace id', async () => {
    const { server, logs } = testServer((web) => {
      web.routes.get('/items/{id}', () => ({ ok: true }));
    });

    await server.inject('/items/42');
    await server.inject('/missing');

    const requests = logs().filter((l) => l.msg === 'request');
    expect(requests).toHaveLength(2);
    expect(requests[0]).toMatchObject({
      method: 'GET',
      route: '/items/{id}',
      status: 200,
      durationMs: expect.any(Number),
      traceId: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
    expect(JSON.stringify(requests[0])).not.toContain('/items/42');
    expect(requests[1]).toMatchObject({ method: 'GET', route: null, status: 404 });
  });
});
