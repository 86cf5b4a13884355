import { CHECKPOINT_ID } from './checkpoints.js';
import { decodeFileContent } from './file-content.js';
import type { CheckpointModel, ContentsModel, GetOptions } from './model.js';
import { readNotebook } from './nbformat/notebook.js';

/**
 * The model of a file as it was at checkpoint `id`: `file` is the file's model now (without
 * content), `last_modified` becomes the checkpoint's (from `listed`), the content comes from `bytes`.
 */
export function checkpointContents(
  file: ContentsModel,
  id: string,
  listed: readonly CheckpointModel[],
  bytes: Uint8Array,
  format: GetOptions['format'],
): ContentsModel {
  const checkpoint = id === CHECKPOINT_ID ? listed.at(-1) : listed.find((each) => each.id === id);
  const last_modified = checkpoint?.last_modified ?? file.last_modified;
  const model: ContentsModel = { ...file, last_modified, size: bytes.byteLength };
  if (file.type === 'notebook') {
    const parsed = readNotebook(bytes, file.path);
    model.content = parsed.notebook;
    model.format = 'json';
    if (parsed.validationMessage !== null) model.message = parsed.validationMessage;
    return model;
  }
  const { content, format: used } = decodeFileContent(file.path, bytes, format);
  model.content = content;
  model.format = used;
  model.mimetype ??= used === 'text' ? 'text/plain' : 'application/octet-stream';
  return model;
}
