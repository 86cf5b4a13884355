/// <reference path="./css.d.ts" />
import labVariables from '@jupyter-widgets/controls/css/labvariables.css' with { type: 'text' };
import lumino from '@jupyter-widgets/controls/css/lumino.css' with { type: 'text' };
import materialColors from '@jupyter-widgets/controls/css/materialcolors.css' with { type: 'text' };
import noUiSlider from '@jupyter-widgets/controls/css/nouislider.css' with { type: 'text' };
import widgetsBase from '@jupyter-widgets/controls/css/widgets-base.css' with { type: 'text' };
import pageWidgets from '../../../styles/widgets.css' with { type: 'text' };

/**
 * The widgets' style sheets, taken as text so they load with the widget code (not with every
 * notebook page) and added to the document once. Their `@import`s are the files listed here.
 */
export function injectWidgetStyles(): void {
  if (document.getElementById('nbserve-widget-styles')) return;
  const strip = (css: string) => css.replace(/@import[^;]+;/g, '');
  const style = document.createElement('style');
  style.id = 'nbserve-widget-styles';
  style.textContent = [materialColors, labVariables, lumino, noUiSlider, widgetsBase, pageWidgets]
    .map(strip)
    .join('\n');
  document.head.append(style);
}
