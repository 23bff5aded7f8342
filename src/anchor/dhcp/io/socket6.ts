/**
 * The DHCPv6 client's UDP socket: port 546 on every address. Unlike IPv4, Node can pick the
 * interface here: a link-scoped destination (`ff02::1:2%<outside>`) leaves through that
 * interface from its link-local address, and servers answer that address.
 */
import { createSocket } from 'node:dgram';
import { LabelwiseError } from '../../../base/errors.js';
import { decodePacket6, encodePacket6 } from '../packet6.js';
import type { Dhcp6Packet } from '../packet6.js';

/** All_DHCP_Relay_Agents_and_Servers (RFC 8415 §7.1). */
const SERVERS = 'ff02::1:2';

export interface Dhcp6Transport {
  send(packet: Dhcp6Packet): Promise<void>;
  close(): Promise<void>;
}

export interface Transport6Handlers {
  readonly onPacket: (packet: Dhcp6Packet) => void;
  readonly onGarbage?: (reason: string) => void;
}

/** Opens the socket. Throws `ANCHOR_DHCP_FAILED` (unavailable) when port 546 cannot be bound. */
export async function openDhcp6Socket(
  iface: string,
  handlers: Transport6Handlers,
  port = 546,
): Promise<Dhcp6Transport> {
  const socket = createSocket({ type: 'udp6', reuseAddr: true });
  socket.on('message', (bytes) => {
    const result = decodePacket6(new Uint8Array(bytes));
    if (result.ok) handlers.onPacket(result.packet);
    else handlers.onGarbage?.(result.reason);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', (error) =>
      reject(
        new LabelwiseError(
          'ANCHOR_DHCP_FAILED',
          `cannot bind UDP port ${port} (IPv6): ${error.message}`,
          {
            hint: 'no other DHCPv6 client may run in the anchor, and IPv6 must be enabled on the outside network',
            kind: 'unavailable',
          },
        ),
      ),
    );
    socket.bind({ port, address: '::', exclusive: true }, () => {
      socket.removeAllListeners('error');
      socket.on('error', () => undefined);
      resolve();
    });
  });
  return {
    send: (packet) =>
      new Promise((resolve, reject) =>
        socket.send(encodePacket6(packet), 547, `${SERVERS}%${iface}`, (error) =>
          error ? reject(error) : resolve(),
        ),
      ),
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}
