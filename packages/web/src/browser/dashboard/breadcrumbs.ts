import { url } from '../../shared/paths.js';
import { pageConfig } from '../lib/config.js';
import { h } from '../lib/dom.js';
import { icon } from '../lib/icons.js';

/** Home / a / b links to each folder above `dir` (and `dir` itself); a click opens it in place. */
export function breadcrumbs(dir: string, open: (path: string) => void): Node[] {
  const base = pageConfig().baseUrl;
  const parts = dir ? dir.split('/') : [];
  const link = (label: string, path: string) => {
    const a = h('a', { href: url(base, 'tree', path), className: 'crumb' }, label);
    a.addEventListener('click', (e) => {
      e.preventDefault();
      open(path);
    });
    return a;
  };
  const home = link('', '');
  home.append(icon('home'), 'Home');
  const items: Node[] = [home];
  parts.forEach((part, i) => {
    items.push(h('span', { className: 'crumb-sep' }, '/'), link(part, parts.slice(0, i + 1).join('/')));
  });
  return items;
}
