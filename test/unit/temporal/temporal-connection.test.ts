import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectionOptions, describeConnection, temporalSettings } from '../../../src/temporal/temporal-connection';

/** No profile file of this machine's user may leak into a test. */
const isolated = (variables: Record<string, string>) => ({ HOME: mkdtempSync(join(tmpdir(), 'home-')), ...variables });

describe('the Temporal connection, read as the temporal CLI reads it', () => {
  test('nothing set: the local default, plaintext, and run may start a dev server', () => {
    expect(temporalSettings(isolated({}))).toEqual({
      address: '127.0.0.1:7233',
      addressConfigured: false,
      namespace: 'default',
    });
  });

  test('variables: address, namespace, API key (which implies TLS), TLS files and gRPC metadata', () => {
    const settings = temporalSettings(
      isolated({
        TEMPORAL_ADDRESS: 'my-ns.a1b2c.tmprl.cloud:7233',
        TEMPORAL_NAMESPACE: 'my-ns.a1b2c',
        TEMPORAL_API_KEY: 'secret-key',
        TEMPORAL_TLS_SERVER_NAME: 'my-ns.a1b2c.tmprl.cloud',
        TEMPORAL_GRPC_META_X_TEAM: 'agents',
      }),
    );
    expect(settings).toMatchObject({
      address: 'my-ns.a1b2c.tmprl.cloud:7233',
      addressConfigured: true,
      namespace: 'my-ns.a1b2c',
      apiKey: 'secret-key',
      metadata: { 'x-team': 'agents' },
    });
    expect(settings.tls).toMatchObject({ serverNameOverride: 'my-ns.a1b2c.tmprl.cloud' });
    expect(connectionOptions(settings.address, settings)).toMatchObject({
      address: settings.address,
      apiKey: 'secret-key',
      tls: expect.anything(),
    });
    expect(describeConnection(settings.address, settings)).toBe('my-ns.a1b2c.tmprl.cloud:7233 (TLS, API key)');
    expect(describeConnection(settings.address, settings)).not.toContain('secret-key');
  });

  test('a profile file chosen by TEMPORAL_PROFILE; a variable wins over the file', () => {
    const directory = mkdtempSync(join(tmpdir(), 'profile-'));
    writeFileSync(
      join(directory, 'ca.pem'),
      '-----BEGIN CERTIFICATE-----\nnot checked here\n-----END CERTIFICATE-----\n',
    );
    const file = join(directory, 'temporal.toml');
    writeFileSync(
      file,
      `[profile.default]\naddress = "localhost:7233"\n\n[profile.prod]\naddress = "temporal.internal:7233"\nnamespace = "agents"\n[profile.prod.tls]\nserver_ca_cert_path = "${join(directory, 'ca.pem')}"\nserver_name = "temporal.internal"\n`,
    );
    const prod = temporalSettings(isolated({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'prod' }));
    expect(prod).toMatchObject({ address: 'temporal.internal:7233', addressConfigured: true, namespace: 'agents' });
    expect(prod.tls).toMatchObject({
      serverNameOverride: 'temporal.internal',
      serverRootCACertificate: expect.any(Uint8Array),
    });
    expect(
      temporalSettings(
        isolated({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'prod', TEMPORAL_ADDRESS: 'other:7233' }),
      ).address,
    ).toBe('other:7233');
    expect(temporalSettings(isolated({ TEMPORAL_CONFIG_FILE: file })).address).toBe('localhost:7233');
  });

  test('a profile file that cannot be read fails naming it', () => {
    const directory = mkdtempSync(join(tmpdir(), 'profile-'));
    const file = join(directory, 'temporal.toml');
    writeFileSync(file, '[profile.default\naddress = ');
    expect(() => temporalSettings(isolated({ TEMPORAL_CONFIG_FILE: file }))).toThrow(
      `cannot read the Temporal connection settings (TEMPORAL_CONFIG_FILE=${file})`,
    );
  });
});
