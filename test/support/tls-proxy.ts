/**
 * A TLS-terminating proxy in front of the dev server, with a throwaway CA: what a Temporal behind
 * a TLS load balancer looks like to a client. gRPC runs over HTTP/2, so the proxy offers `h2`
 * through ALPN and passes the decrypted bytes to the dev server's plaintext port.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { createServer, type Server } from 'node:tls';

export interface TlsProxy {
  address: string;
  caPath: string;
  /** TLS connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

/** A CA and a certificate for `localhost` and 127.0.0.1 signed by it, made with openssl. */
export function makeCertificates(directory: string): { caPath: string; certPath: string; keyPath: string } {
  const path = (name: string) => join(directory, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    path('ca.key'),
    '-out',
    path('ca.pem'),
    '-days',
    '1',
    '-subj',
    '/CN=durable-agent test CA',
  );
  openssl(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    path('server.key'),
    '-out',
    path('server.csr'),
    '-subj',
    '/CN=localhost',
  );
  writeFileSync(path('server.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  openssl(
    'x509',
    '-req',
    '-in',
    path('server.csr'),
    '-CA',
    path('ca.pem'),
    '-CAkey',
    path('ca.key'),
    '-CAcreateserial',
    '-out',
    path('server.pem'),
    '-days',
    '1',
    '-extfile',
    path('server.ext'),
  );
  return { caPath: path('ca.pem'), certPath: path('server.pem'), keyPath: path('server.key') };
}

export async function startTlsProxy(directory: string, upstream: string): Promise<TlsProxy> {
  const { caPath, certPath, keyPath } = makeCertificates(directory);
  const [host, port] = [
    upstream.slice(0, upstream.lastIndexOf(':')),
    Number(upstream.slice(upstream.lastIndexOf(':') + 1)),
  ];
  let accepted = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer(
    { key: readFileSync(keyPath), cert: readFileSync(certPath), ALPNProtocols: ['h2'] },
    (client) => {
      accepted++;
      const backend = connect(port, host);
      for (const socket of [client, backend]) {
        sockets.add(socket);
        socket.on('error', () => undefined);
        socket.on('close', () => sockets.delete(socket));
      }
      client.pipe(backend).pipe(client);
      client.on('close', () => backend.destroy());
      backend.on('close', () => client.destroy());
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: listening } = server.address() as { port: number };
  return {
    address: `127.0.0.1:${listening}`,
    caPath,
    connections: () => accepted,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
