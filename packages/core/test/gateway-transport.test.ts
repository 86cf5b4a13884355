/**
 * The transport of a gateway kernel on its own: a channel set reopened under the same routing id
 * (as a KernelClient re-attaching) still reaches the gateway and gets its replies, with no
 * ZeroMQ between the server and the gateway's WebSocket.
 */

import { describe, expect, it } from 'vitest';
import { within } from '../../../testing/wait.js';
import { GatewayTransport } from '../src/gateway/transport.js';
import { protocol } from '../src/index.js';

describe('GatewayTransport', () => {
  it('routes a client that reopens its channels under the same routing id', async () => {
    let uplinked: (raw: protocol.RawMessage) => void = () => {};
    const transport = new GatewayTransport({ send: (_channel, raw) => uplinked(raw) });
    let dropped = 0;
    transport.onBadMessage = () => dropped++;

    /** One request through a fresh channel set named `client`; the "gateway" answers it at once. */
    const roundTrip = async (): Promise<string> => {
      let replied: (raw: protocol.RawMessage) => void = () => {};
      const answered = new Promise<protocol.RawMessage>((resolve) => {
        replied = resolve;
      });
      const set = transport.open('client', ['stdin', 'shell', 'control'], (_channel, raw) => replied(raw));
      const request = protocol.createMessage('kernel_info_request', {}, { session: 'test' });
      const sent = new Promise<protocol.RawMessage>((resolve) => {
        uplinked = resolve;
      });
      set.send('shell', protocol.toRaw(request));
      const raw = await within(sent, 5000, 'request at the gateway');
      const parent = protocol.fromRaw(raw).header;
      const reply = protocol.createMessage('kernel_info_reply', { status: 'ok' }, { session: 'kernel', parent });
      transport.deliver('shell', protocol.toRaw(reply));
      const answer = protocol.fromRaw(await within(answered, 5000, 'reply at the client'));
      set.close();
      return (answer.parent_header as protocol.MessageHeader).msg_id;
    };

    const first = await roundTrip();
    const second = await roundTrip();
    expect(first).not.toBe(second);
    expect(dropped).toBe(0);
    transport.close();
  });
});
