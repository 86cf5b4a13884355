// needs: kernel
/**
 * The ZeroMQ bridge of a gateway kernel on its own: a client that reopens its sockets under the
 * same routing id (as a KernelClient re-attaching) still reaches the gateway and gets its replies.
 */

import { afterEach, describe, expect, it } from 'vitest';
import type { Dealer } from 'zeromq';
import { within } from '../../../testing/wait.js';
import { ZmqBridge } from '../src/gateway/bridge.js';
import { protocol } from '../src/index.js';
import { zmq } from '../src/kernels/zmq.js';

let bridge: ZmqBridge | undefined;
const dealers: Dealer[] = [];

afterEach(() => {
  for (const dealer of dealers.splice(0)) dealer.close();
  bridge?.close();
  bridge = undefined;
});

describe('ZmqBridge', () => {
  it('routes a client that reconnects under the same routing id', async () => {
    const open = await ZmqBridge.open('python3');
    bridge = open;
    const info = open.connection;
    const signer = new protocol.Signer(info.key, info.signature_scheme);
    let uplinked: (raw: protocol.RawMessage) => void = () => {};
    open.connect({ send: (_channel, raw) => uplinked(raw) });

    /** One request through a fresh DEALER named `client`; the "gateway" answers it at once. */
    const roundTrip = async (): Promise<string> => {
      const dealer = new (zmq().Dealer)({ routingId: 'client', linger: 0 });
      dealers.push(dealer);
      dealer.connect(`tcp://${info.ip}:${info.shell_port}`);
      const request = protocol.createMessage('kernel_info_request', {}, { session: 'test' });
      const sent = new Promise<protocol.RawMessage>((resolve) => {
        uplinked = resolve;
      });
      await dealer.send(protocol.encodeWire(protocol.toRaw(request), signer));
      const raw = await within(sent, 5000, 'request at the gateway');
      const parent = protocol.fromRaw(raw).header;
      const reply = protocol.createMessage('kernel_info_reply', { status: 'ok' }, { session: 'kernel', parent });
      open.deliver('shell', protocol.toRaw(reply));
      const [...frames] = await within(dealer.receive(), 5000, 'reply at the client');
      const answer = protocol.fromRaw(protocol.decodeWire(frames).raw);
      dealer.close();
      return (answer.parent_header as protocol.MessageHeader).msg_id;
    };

    const first = await roundTrip();
    const second = await roundTrip();
    expect(first).not.toBe(second);
    expect(open.dropped).toBe(0);
  });
});
