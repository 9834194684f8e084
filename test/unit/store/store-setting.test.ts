import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describeStore, storeSetting } from '../../../src/store/store-setting';
import { scratchDir } from '../../support/paths';

describe('AGENT_STORE', () => {
  test('file URLs, absolute paths and PostgreSQL URLs; AGENT_CONTENT_DIR as the older name of a file store', () => {
    expect(storeSetting({ AGENT_STORE: 'file:///srv/agent/store' })).toEqual({
      kind: 'file',
      directory: '/srv/agent/store',
    });
    expect(storeSetting({ AGENT_STORE: '/srv/agent/store' })).toEqual({ kind: 'file', directory: '/srv/agent/store' });
    expect(storeSetting({ AGENT_STORE: 'postgres://agent:pw@db:5432/agent' })).toEqual({
      kind: 'postgres',
      url: 'postgres://agent:pw@db:5432/agent',
    });
    expect(storeSetting({ AGENT_STORE: 'postgresql://db/agent' })).toEqual({
      kind: 'postgres',
      url: 'postgresql://db/agent',
    });
    expect(storeSetting({ AGENT_CONTENT_DIR: '/data/content' })).toEqual({ kind: 'file', directory: '/data/content' });
    // AGENT_STORE wins over the older name.
    expect(storeSetting({ AGENT_STORE: 'postgres://db/agent', AGENT_CONTENT_DIR: '/data/content' })).toMatchObject({
      kind: 'postgres',
    });
  });

  test('a value it cannot use fails, naming AGENT_STORE, never a password', () => {
    expect(() => storeSetting({ AGENT_STORE: 'mysql://agent:pw@db/agent' })).toThrow(
      'AGENT_STORE=mysql://agent:***@db/agent: use file:///absolute/dir or postgres://',
    );
    expect(() => storeSetting({ AGENT_STORE: 'relative/dir' })).toThrow('AGENT_STORE=relative/dir');
  });

  test('the default is ~/.durable-agent/store, or the older ~/.durable-agent/content when only that one holds content', () => {
    const home = scratchDir('home');
    expect(storeSetting({}, home)).toEqual({ kind: 'file', directory: join(home, '.durable-agent', 'store') });
    mkdirSync(join(home, '.durable-agent', 'content'), { recursive: true });
    expect(storeSetting({}, home)).toEqual({ kind: 'file', directory: join(home, '.durable-agent', 'content') });
    mkdirSync(join(home, '.durable-agent', 'store'), { recursive: true });
    expect(storeSetting({}, home)).toEqual({ kind: 'file', directory: join(home, '.durable-agent', 'store') });
  });

  test('logs and errors describe a store without its password', () => {
    expect(describeStore({ kind: 'postgres', url: 'postgres://agent:s3cret@db:5432/agent' })).toBe(
      'postgres://agent:***@db:5432/agent',
    );
    expect(describeStore({ kind: 'file', directory: '/srv/store' })).toBe('file:///srv/store');
  });
});
