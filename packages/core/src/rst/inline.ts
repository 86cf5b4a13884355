import { escapeHtml } from '../html/escape.js';
import { safeLinkUrl } from './safe-url.js';

// One alternation per inline construct, tried left to right, the way docutils scans:
// ``literal``, **strong**, *emphasis*, `text <url>`_ / `name`_, :role:`text`, name_, bare URL.
const INLINE =
  /``(.+?)``|\*\*(.+?)\*\*|\*(?!\s)(.+?)\*|`([^`]+?)\s*<([^<>`]+)>`__?|`([^`]+)`_{1,2}|:[\w-]+:`([^`]+)`|`([^`]+)`|\b(\w[\w.-]*)_(?!\w)|\b(https?:\/\/[^\s<>"')\]]*[^\s<>"')\].,;:!?])/g;

/** Inline reST markup of one paragraph to HTML; everything not markup is escaped. */
export function renderInline(text: string, targets: ReadonlyMap<string, string>): string {
  let html = '';
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    html += escapeHtml(text.slice(last, m.index));
    last = m.index + m[0].length;
    if (m[1] !== undefined) html += `<code>${escapeHtml(m[1])}</code>`;
    else if (m[2] !== undefined) html += `<strong>${escapeHtml(m[2])}</strong>`;
    else if (m[3] !== undefined) html += `<em>${escapeHtml(m[3])}</em>`;
    else if (m[4] !== undefined && m[5] !== undefined) html += link(m[4], m[5].replace(/\s+/g, ''));
    else if (m[6] !== undefined) html += reference(m[6], targets);
    else if (m[7] !== undefined) html += `<code>${escapeHtml(m[7])}</code>`;
    else if (m[8] !== undefined) html += `<cite>${escapeHtml(m[8])}</cite>`;
    else if (m[9] !== undefined) html += reference(m[9], targets);
    else if (m[10] !== undefined) html += link(m[10], m[10]);
  }
  return html + escapeHtml(text.slice(last));
}

function reference(name: string, targets: ReadonlyMap<string, string>): string {
  const url = targets.get(normalizeName(name));
  return url === undefined ? escapeHtml(name) : link(name, url);
}

function link(text: string, url: string): string {
  const safe = safeLinkUrl(url);
  if (safe === undefined) return escapeHtml(text);
  return `<a class="reference external" href="${escapeHtml(safe)}">${escapeHtml(text)}</a>`;
}

/** reST reference names are case- and whitespace-insensitive. */
export function normalizeName(name: string): string {
  return name.trim().replace(/\s+/g, ' ').toLowerCase();
}
