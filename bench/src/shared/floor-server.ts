// The floor of the server hop benchmark, run as a child process: a bare node:http server that reads the same
// request body, JSON.parses it, and answers with a response of the same size and shape as the reference server's
// answer to that hop (recorded in a calibration turn). Everything the reference server does beyond that is the
// protocol's cost. Usage: floor-server.ts <responses.json> (an array: the response of hop 1, hop 2, …).
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const file = process.argv[2];
if (!file) {
  console.error('usage: floor-server.ts <responses.json>');
  process.exit(2);
}
const responses = JSON.parse(readFileSync(file, 'utf8')) as Array<Record<string, unknown>>;

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    // The load's cancel of a turn it leaves at the window's end (shared/http-load.ts): answered, as a server does.
    if (request.method === 'DELETE') {
      const cancelled = '{"status":true,"cancelled":true}';
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': cancelled.length });
      response.end(cancelled);
      return;
    }
    const hopRequest = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { hop: number; request_id: string };
    const recorded = responses[hopRequest.hop - 1] ?? responses[0]!;
    const body = JSON.stringify({ ...recorded, request_id: hopRequest.request_id, hop: hopRequest.hop });
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    response.end(body);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  console.error(`floor server listening on http://127.0.0.1:${port}`);
});
process.once('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
