import type { ContentsChange } from '@nbserve/core';
import type { Auditor } from './auditor.js';

/**
 * The audit log's listener of the contents events the `/api/contents` routes emit: one line per
 * change, by the request's actor (`currentActor()`: the listener runs inside the request), none
 * for a read.
 */
export function auditContents(audit: Auditor): (change: ContentsChange) => void {
  return (change) => {
    const { path, type, sourcePath } = change;
    const size = change.size ?? null;
    switch (change.action) {
      case 'create':
        audit.record('contents.create', { path, type });
        return;
      case 'save':
      case 'upload': {
        // Not the event's split (new or existing path): the dashboard uploads with base64 (files)
        // or in chunks (big files), and those are the uploads here.
        const upload = change.format === 'base64' || change.chunk !== undefined;
        const chunk = change.chunk !== undefined ? { chunk: change.chunk } : {};
        audit.record(upload ? 'contents.upload' : 'contents.save', { path, type, size, ...chunk });
        return;
      }
      case 'copy':
        audit.record('contents.copy', { path, type, copy_from: sourcePath, size });
        return;
      case 'rename':
        audit.record('contents.rename', { path, old_path: sourcePath });
        return;
      case 'delete':
        audit.record('contents.delete', { path });
        return;
    }
  };
}
