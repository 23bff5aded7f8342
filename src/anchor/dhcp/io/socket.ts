/**
 * The DHCP client's UDP socket: port 68 on every address, broadcast allowed.
 *
 * Node cannot bind a socket to a device (no SO_BINDTODEVICE) nor send raw frames, which is how
 * anchord's Go client (insomniacslk/dhcp nclient4) talks on the outside interface. What works
 * from Node inside the anchor's network namespace instead:
 *
 * - Requests to 255.255.255.255 leave by the route the kernel picks for that address, which is
 *   the default route: on an anchor that is Docker's bridge, not the outside network. A host
 *   route `255.255.255.255/32 dev <outside>` (addressing.ts) sends them out the right interface.
 * - Replies: every request sets the BROADCAST flag, so servers broadcast their OFFER and ACK
 *   and a socket on 0.0.0.0:68 receives them without the client having an address yet.
 *   Renewals are unicast both ways once the address is configured.
 * - Replies from the anchor's other networks are dropped by transaction id and MAC.
 */
import { createSocket } from 'node:dgram';
import type { Socket } from 'node:dgram';
import { LabelwiseError } from '../../../base/errors.js';
import { decodePacket, encodePacket } from '../packet.js';
import type { DhcpPacket } from '../packet.js';

const CLIENT_PORT = 68;
const SERVER_PORT = 67;

/** Sends and receives DHCP messages. */
export interface DhcpTransport {
  send(packet: DhcpPacket, to: 'broadcast' | string): Promise<void>;
  close(): Promise<void>;
}

/** Receives every decoded message, and the reason for bytes that are not one. */
export interface TransportHandlers {
  readonly onPacket: (packet: DhcpPacket) => void;
  readonly onGarbage?: (reason: string) => void;
}

/**
 * Opens the client socket. Throws `ANCHOR_DHCP_FAILED` (unavailable) when port 68 cannot be
 * bound: another DHCP client holds it, or the process lacks the right to bind below 1024.
 */
export async function openDhcpSocket(
  handlers: TransportHandlers,
  port = CLIENT_PORT,
): Promise<DhcpTransport> {
  const socket: Socket = createSocket({ type: 'udp4', reuseAddr: true });
  socket.on('message', (bytes) => {
    const result = decodePacket(new Uint8Array(bytes));
    if (result.ok) handlers.onPacket(result.packet);
    else handlers.onGarbage?.(result.reason);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', (error) =>
      reject(
        new LabelwiseError('ANCHOR_DHCP_FAILED', `cannot bind UDP port ${port}: ${error.message}`, {
          hint: 'no other DHCP client may run in the anchor; binding port 68 needs root or NET_BIND_SERVICE',
          kind: 'unavailable',
        }),
      ),
    );
    socket.bind({ port, address: '0.0.0.0', exclusive: true }, () => {
      socket.removeAllListeners('error');
      socket.on('error', () => undefined); // a send error is reported by send's callback
      socket.setBroadcast(true);
      resolve();
    });
  });
  return {
    send: (packet, to) =>
      new Promise((resolve, reject) => {
        const address = to === 'broadcast' ? '255.255.255.255' : to;
        socket.send(encodePacket(packet), SERVER_PORT, address, (error) =>
          error ? reject(error) : resolve(),
        );
      }),
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}
