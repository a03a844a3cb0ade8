import { createServer } from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import { serve } from './child';

// Baseline of the fan-out scenario: a bare `ws` server broadcasting one JSON message to every
// subscriber, the ceiling of what one Node process can push to N sockets. It speaks just enough of
// graphql-transport-ws for the same load clients (connection_ack to connection_init, and it remembers
// who subscribed); no authentication, no GraphQL, no database.
//
//   POST /broadcast   body: the `payload` of the message (the GraphQL result); sends
//                     {"id":"1","type":"next","payload":<body>} to every subscriber (the clients all
//                     subscribe with id "1", so it is one string, made once, sent N times), then answers 204
//   command subscribers -> how many sockets subscribed
serve('ws-bare', async () => {
  const subscribed = new Set<WebSocket>();
  const server = createServer((request, response) => {
    if (request.method !== 'POST' || request.url !== '/broadcast') {
      response.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const message = `{"id":"1","type":"next","payload":${Buffer.concat(chunks).toString()}}`;
      for (const socket of subscribed) socket.send(message);
      response.writeHead(204).end();
    });
  });
  const wss = new WebSocketServer({
    server,
    path: '/graphql',
    perMessageDeflate: false,
    handleProtocols: (protocols) => (protocols.has('graphql-transport-ws') ? 'graphql-transport-ws' : false),
  });
  wss.on('connection', (socket) => {
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString()) as { type?: string };
      if (message.type === 'connection_init') socket.send('{"type":"connection_ack"}');
      else if (message.type === 'subscribe') subscribed.add(socket);
    });
    socket.on('close', () => subscribed.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(Number(process.env.BENCH_PORT ?? 0), '127.0.0.1', resolve));
  return {
    app: { server },
    async close() {
      for (const socket of wss.clients) socket.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    commands: { subscribers: () => subscribed.size },
  };
});
