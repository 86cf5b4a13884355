/** The page's config block (`<script type="application/json" id="nbserve-config">`). */
export interface PageConfig {
  baseUrl: string;
  path: string;
  [key: string]: unknown;
}

let cached: PageConfig | undefined;

export function pageConfig(): PageConfig {
  if (cached) return cached;
  const el = document.getElementById('nbserve-config');
  const parsed = el?.textContent ? (JSON.parse(el.textContent) as Partial<PageConfig>) : {};
  cached = { ...parsed, baseUrl: parsed.baseUrl ?? '/', path: parsed.path ?? '' };
  return cached;
}
