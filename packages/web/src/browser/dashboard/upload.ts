import { joinPath } from '../../shared/paths.js';
import { api, contentsRoute } from '../lib/api.js';

/** Files above this size go up in chunks (the contents API's `chunk` field), like JupyterLab. */
export const CHUNK_SIZE = 1024 * 1024;

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  const step = 0x8000;
  for (let i = 0; i < bytes.length; i += step) {
    binary += String.fromCharCode(...bytes.subarray(i, i + step));
  }
  return btoa(binary);
}

/**
 * Uploads one browser File into `dir`. Notebooks go up as JSON models; other files as base64,
 * in 1 MiB chunks when larger than that, so no single request is huge.
 */
export async function uploadFile(dir: string, file: File, onProgress?: (fraction: number) => void): Promise<void> {
  const route = contentsRoute(joinPath(dir, file.name));
  if (file.name.endsWith('.ipynb')) {
    let content: unknown;
    try {
      content = JSON.parse(await file.text());
    } catch {
      throw new Error(`${file.name} is not a valid notebook (invalid JSON)`);
    }
    await api(route, { method: 'PUT', body: { type: 'notebook', format: 'json', content } });
    onProgress?.(1);
    return;
  }
  if (file.size <= CHUNK_SIZE) {
    const content = toBase64(new Uint8Array(await file.arrayBuffer()));
    await api(route, { method: 'PUT', body: { type: 'file', format: 'base64', content } });
    onProgress?.(1);
    return;
  }
  const chunks = Math.ceil(file.size / CHUNK_SIZE);
  for (let i = 0; i < chunks; i++) {
    const slice = file.slice(i * CHUNK_SIZE, Math.min(file.size, (i + 1) * CHUNK_SIZE));
    const content = toBase64(new Uint8Array(await slice.arrayBuffer()));
    const chunk = i === chunks - 1 ? -1 : i + 1;
    await api(route, { method: 'PUT', body: { type: 'file', format: 'base64', content, chunk } });
    onProgress?.((i + 1) / chunks);
  }
}
