import { iconPathAttributes } from '../../shared/icon-shapes.js';

/** An inline SVG icon, built with DOM APIs (no innerHTML). */
export function icon(kind: string): SVGSVGElement {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', '0 0 20 20');
  svg.setAttribute('class', `icon icon-${kind}`);
  svg.setAttribute('aria-hidden', 'true');
  const path = document.createElementNS(ns, 'path');
  for (const [name, value] of iconPathAttributes(kind)) path.setAttribute(name, value);
  svg.append(path);
  return svg;
}
