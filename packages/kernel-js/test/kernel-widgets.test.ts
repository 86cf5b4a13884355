// needs: kernel
import * as protocol from '@nbserve/core/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KernelClient, type Message, ofType } from './kernel-client.js';

/**
 * The kernel side of ipywidgets 8 (widget message protocol 2.1) in the JavaScript kernel:
 * https://github.com/jupyter-widgets/ipywidgets/blob/main/packages/schema/messages.md
 */
let kernel: KernelClient;

beforeAll(async () => {
  kernel = await KernelClient.launch();
  await kernel.ready();
});

afterAll(async () => {
  await kernel?.close();
});

/** A comm message from a frontend (no reply on shell): resolves with its iopub messages. */
async function commMsg(msgType: string, content: Record<string, unknown>): Promise<Message[]> {
  const msg = protocol.createMessage(msgType, content, { session: kernel.session, username: 'test' });
  await kernel.sendRawFrames(kernel.sign(msg));
  return kernel.iopubUntilIdle(msg.header.msg_id);
}

const data = (m: Message | undefined) => (m?.content.data ?? {}) as Record<string, unknown>;

async function value(expression: string): Promise<unknown> {
  const r = await kernel.execute(expression);
  const result = ofType(r.iopub, 'execute_result')[0];
  return (result?.content.data as Record<string, string> | undefined)?.['text/plain'];
}

describe('widgets', () => {
  it('opens jupyter.widget comms with ipywidgets 8 state and shows a widget view', async () => {
    const r = await kernel.execute('const s = new widgets.IntSlider({ value: 3, max: 10, description: "n" }); s');
    const opens = ofType(r.iopub, 'comm_open');
    // Layout, SliderStyle, then the slider itself, as ipywidgets does.
    expect(opens.map((m) => (data(m).state as Record<string, unknown>)._model_name)).toEqual([
      'LayoutModel',
      'SliderStyleModel',
      'IntSliderModel',
    ]);
    const slider = opens[2] as Message;
    expect(slider.content.target_name).toBe('jupyter.widget');
    expect(slider.metadata).toEqual({ version: '2.1.0' });
    const state = data(slider).state as Record<string, unknown>;
    expect(state).toMatchObject({
      _model_module: '@jupyter-widgets/controls',
      _model_module_version: '2.0.0',
      _view_name: 'IntSliderView',
      value: 3,
      max: 10,
      description: 'n',
      layout: `IPY_MODEL_${opens[0]?.content.comm_id}`,
      style: `IPY_MODEL_${opens[1]?.content.comm_id}`,
    });
    const shown = ofType(r.iopub, 'execute_result')[0]?.content.data as Record<string, unknown>;
    expect(shown['application/vnd.jupyter.widget-view+json']).toEqual({
      version_major: 2,
      version_minor: 0,
      model_id: slider.content.comm_id,
    });
    expect(shown['text/plain']).toBe("IntSlider(value=3, description='n')");
    const info = await kernel.request('shell', 'comm_info_request', { target_name: 'jupyter.widget' });
    expect(Object.keys(info.reply.content.comms as object)).toContain(slider.content.comm_id);
  });

  it('takes updates from a frontend: echo_update, then observers and their updates', async () => {
    const r = await kernel.execute(
      'const a = new widgets.IntSlider(); const label = new widgets.Label();\n' +
        'a.observe((c) => { label.value = "now " + c.new }, "value");',
    );
    const opens = ofType(r.iopub, 'comm_open');
    const id = opens[2]?.content.comm_id;
    const labelId = opens.at(-1)?.content.comm_id;
    const iopub = await commMsg('comm_msg', {
      comm_id: id,
      data: { method: 'update', state: { value: 7 }, buffer_paths: [] },
    });
    const msgs = ofType(iopub, 'comm_msg').map((m) => [m.content.comm_id, data(m).method, data(m).state]);
    expect(msgs).toEqual([
      [id, 'echo_update', { value: 7 }],
      [labelId, 'update', { value: 'now 7' }],
    ]);
    expect(await value('a.value')).toBe('7');
    // A kernel-side change is sent as an update; request_state sends everything.
    const set = await kernel.execute('a.value = 9');
    expect(ofType(set.iopub, 'comm_msg').map((m) => data(m).state)).toEqual([{ value: 9 }, { value: 'now 9' }]);
    const full = await commMsg('comm_msg', { comm_id: id, data: { method: 'request_state' } });
    expect(data(ofType(full, 'comm_msg')[0]).state).toMatchObject({ value: 9, _model_name: 'IntSliderModel' });
  });

  it('answers request_states on the control comm, and closes comms of other targets', async () => {
    const control = await commMsg('comm_open', {
      comm_id: 'control-1',
      target_name: 'jupyter.widget.control',
      data: {},
    });
    expect(ofType(control, 'comm_close')).toEqual([]);
    const states = await commMsg('comm_msg', { comm_id: 'control-1', data: { method: 'request_states' } });
    const reply = data(ofType(states, 'comm_msg')[0]);
    expect(reply.method).toBe('update_states');
    const all = Object.values(reply.states as Record<string, { model_name: string }>).map((s) => s.model_name);
    expect(all).toEqual(expect.arrayContaining(['IntSliderModel', 'LabelModel', 'LayoutModel']));
    const other = await commMsg('comm_open', { comm_id: 'x-1', target_name: 'no.such.target', data: {} });
    expect(ofType(other, 'comm_close').map((m) => m.content.comm_id)).toEqual(['x-1']);
  });

  it('updates an IntProgress and an Output from the kernel, and closes a widget', async () => {
    const r = await kernel.execute(
      'const p = new widgets.IntProgress({ max: 4 }); const out = new widgets.Output();\n' +
        'p.value = 2; out.appendStdout("hello\\n"); out.close(); p',
    );
    const updates = ofType(r.iopub, 'comm_msg').map((m) => data(m).state);
    expect(updates).toEqual([{ value: 2 }, { outputs: [{ output_type: 'stream', name: 'stdout', text: 'hello\n' }] }]);
    expect(ofType(r.iopub, 'comm_close')).toHaveLength(1);
  });
});
