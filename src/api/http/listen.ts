// Binding an HTTP server: resolves with its base URL once it listens, rejects when it cannot.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export async function listenOn(server: Server, host: string, port: number): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port: bound } = server.address() as AddressInfo;
  return `http://${host.includes(':') ? `[${host}]` : host}:${bound}`;
}
