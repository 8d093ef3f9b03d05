/**
 * The peer the proxy benchmark measures Spillway against: the least a Node proxy can do, a request
 * piped to the upstream and its answer piped back over kept-alive connections, nothing read, parsed
 * or stored. Run as `UPSTREAM=http://… npx tsx bench/pass-through-proxy.ts`; prints its address.
 */
import { Agent, createServer, request } from 'node:http';

const upstream = new URL(process.env.UPSTREAM ?? 'http://127.0.0.1:8000');
const agent = new Agent({ keepAlive: true, maxSockets: 256 });

const server = createServer((incoming, outgoing) => {
  const forward = request(
    {
      host: upstream.hostname,
      port: upstream.port,
      path: incoming.url,
      method: incoming.method,
      headers: { ...incoming.headers, host: upstream.host },
      agent,
    },
    (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    },
  );
  forward.on('error', () => outgoing.destroy());
  incoming.pipe(forward);
});

server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object')
    process.stdout.write(`listening on http://127.0.0.1:${address.port}\n`);
});
process.once('SIGTERM', () => process.exit(0));
process.once('SIGINT', () => process.exit(0));
