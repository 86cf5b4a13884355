import type { ContentsModel } from '@nbserve/core';
import { encodePath } from '../../shared/paths.js';
import { pageConfig } from './config.js';

/** A failed API call, carrying Jupyter's `{message, reason}` error body. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly reason: string | null,
  ) {
    super(message);
  }
}

function cookie(name: string): string | undefined {
  for (const part of document.cookie.split(';')) {
    const [k, ...rest] = part.trim().split('=');
    if (k === name) return decodeURIComponent(rest.join('='));
  }
  return undefined;
}

/** The XSRF token the server expects on cookie-authenticated unsafe requests. */
export function xsrfToken(): string | undefined {
  const fromPage = pageConfig().xsrfToken;
  return cookie('_xsrf') ?? (typeof fromPage === 'string' ? fromPage : undefined);
}

export interface RequestOptions {
  method?: string;
  body?: unknown;
  query?: Record<string, string>;
  headers?: Record<string, string>;
}

/** Calls `<base><route>` and returns the parsed JSON (or undefined for an empty body). */
export async function api<T = unknown>(route: string, options: RequestOptions = {}): Promise<T> {
  const { baseUrl } = pageConfig();
  const qs = options.query ? `?${new URLSearchParams(options.query).toString()}` : '';
  const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
  const method = options.method ?? 'GET';
  const xsrf = xsrfToken();
  if (xsrf) headers['X-XSRFToken'] = xsrf;
  let body: string | undefined;
  if (options.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  const response = await fetch(`${baseUrl}${route.replace(/^\//, '')}${qs}`, {
    method,
    headers,
    credentials: 'same-origin',
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.text();
  if (!response.ok) {
    let message = response.statusText || `HTTP ${response.status}`;
    let reason: string | null = null;
    try {
      const parsed = JSON.parse(text) as { message?: unknown; reason?: unknown };
      if (typeof parsed.message === 'string' && parsed.message) message = parsed.message;
      if (typeof parsed.reason === 'string') reason = parsed.reason;
    } catch {
      if (text && text.length < 300 && !text.trimStart().startsWith('<')) message = text;
    }
    throw new ApiError(response.status, message, reason);
  }
  return (text ? JSON.parse(text) : undefined) as T;
}

/**
 * The contents model is core's own type. Only the type is imported (erased when bundled), so
 * nothing of core reaches the browser.
 */
export type { ContentsModel };

export const contentsRoute = (path: string) => `api/contents${path ? `/${encodePath(path)}` : ''}`;

export function getContents(path: string, query: Record<string, string> = {}): Promise<ContentsModel> {
  return api<ContentsModel>(contentsRoute(path), { query });
}

export interface KernelSpecs {
  default: string;
  kernelspecs: Record<
    string,
    { name: string; spec: { display_name: string; language: string }; resources: Record<string, string> }
  >;
}

export interface KernelModel {
  id: string;
  name: string;
  execution_state?: string;
  last_activity?: string;
  connections?: number;
}

export interface SessionModel {
  id: string;
  path: string;
  name: string;
  type: string;
  kernel: KernelModel;
}

/** A terminal as `/api/terminals` lists it. */
export interface TerminalModel {
  name: string;
  last_activity: string;
}
