import { DOMWidgetModel, DOMWidgetView } from '@jupyter-widgets/base';
import { normaliseOutput, type Output } from '../model.js';
import { DisplayRegistry, OutputArea } from '../output-area.js';
import type { WidgetViews } from '../render-mime.js';

/**
 * `@jupyter-widgets/output` 1.0.0 (the Output widget): its `outputs` attribute, nbformat
 * outputs, shown by the page's own output renderer. What `msg_id` captures is added by the
 * widget manager (manager.ts), as JupyterLab's Output widget does.
 */
export class OutputModel extends DOMWidgetModel {
  override defaults(): Backbone.ObjectHash {
    return {
      ...super.defaults(),
      _model_name: 'OutputModel',
      _model_module: '@jupyter-widgets/output',
      _model_module_version: '1.0.0',
      _view_name: 'OutputView',
      _view_module: '@jupyter-widgets/output',
      _view_module_version: '1.0.0',
      msg_id: '',
      outputs: [],
    };
  }
}

export class OutputView extends DOMWidgetView {
  override render(): void {
    super.render();
    this.el.classList.add('jupyter-widgets', 'widget-output');
    this.listenTo(this.model, 'change:outputs', () => this.show());
    this.show();
  }

  private show(): void {
    const outputs = (this.model.get('outputs') ?? []) as Output[];
    // Output widgets are shown sanitized, as untrusted outputs: no scripts run from widget state.
    // The manager (manager.ts) holds the page's widget host; typed here without importing it back.
    const { views } = this.model.widget_manager as unknown as { views: WidgetViews };
    const area = new OutputArea(outputs.map(normaliseOutput), false, new DisplayRegistry(), views);
    this.el.replaceChildren(area.element);
  }
}
