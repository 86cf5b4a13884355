import { diffChars } from 'diff';
import type * as Y from 'yjs';

/** An edit of a text: `length` characters at `at` (UTF-16 offsets) replaced by `text`. */
interface Edit {
  at: number;
  length: number;
  text: string;
}

/** A character diff gives up past this (a huge rewrite): the differing middle is replaced whole. */
const DIFF_TIMEOUT_MS = 50;

/**
 * The edits turning `from` into `to`: the common prefix and suffix are cut first (cheap, and all
 * there is to most edits), the middle is diffed by characters (jsdiff's Myers diff), so text
 * another client is typing between two changed spots is never deleted and re-inserted.
 */
export function textEdits(from: string, to: string): Edit[] {
  if (from === to) return [];
  let start = 0;
  const max = Math.min(from.length, to.length);
  while (start < max && from[start] === to[start]) start++;
  let end = 0;
  while (end < max - start && from[from.length - 1 - end] === to[to.length - 1 - end]) end++;
  const a = from.slice(start, from.length - end);
  const b = to.slice(start, to.length - end);
  const whole = [{ at: start, length: a.length, text: b }];
  if (a.length === 0 || b.length === 0) return whole;
  const changes = diffChars(a, b, { timeout: DIFF_TIMEOUT_MS });
  if (changes === undefined) return whole;
  const edits: Edit[] = [];
  let at = start; // offset in `from`
  for (const change of changes) {
    const last = edits.at(-1);
    const open = last !== undefined && last.at + last.length === at ? last : undefined;
    if (change.added) {
      if (open) open.text += change.value;
      else edits.push({ at, length: 0, text: change.value });
    } else if (change.removed) {
      if (open) open.length += change.value.length;
      else edits.push({ at, length: change.value.length, text: '' });
      at += change.value.length;
    } else {
      at += change.value.length;
    }
  }
  return edits;
}

/** Applies edits (offsets in the text as it is now), last first so earlier offsets hold. */
function applyEdits(text: Y.Text, edits: readonly Edit[]): void {
  for (const edit of [...edits].reverse()) {
    if (edit.length > 0) text.delete(edit.at, edit.length);
    if (edit.text.length > 0) text.insert(edit.at, edit.text);
  }
}

/** Makes `text` read `next` with the fewest character edits (a diff, not a rewrite). */
export function replaceText(text: Y.Text, next: string): void {
  applyEdits(text, textEdits(text.toString(), next));
}

/**
 * A three-way merge of a text: `base` is what the file held when last loaded or saved, `next` what
 * it holds now, `text` the shared text (with edits made since `base`). Each change from `base` to
 * `next` is applied where it falls in `text`, so edits elsewhere survive; when a change overlaps
 * one made in `text` since `base`, the file wins: `text` becomes `next`. Returns false then.
 */
export function mergeText(text: Y.Text, base: string, next: string): boolean {
  const current = text.toString();
  if (current === base) {
    applyEdits(text, textEdits(current, next));
    return true;
  }
  const theirs = textEdits(base, next);
  const ours = textEdits(base, current);
  const mapped: Edit[] = [];
  for (const edit of theirs) {
    const at = mapOffset(ours, edit);
    if (at === null) {
      replaceText(text, next);
      return false;
    }
    mapped.push({ ...edit, at });
  }
  applyEdits(text, mapped);
  return true;
}

/**
 * Where `edit` (offsets in the base) falls in the text after `ours` (edits of the base), or null
 * when one of ours touches the range it replaces (an insertion at the same spot counts).
 */
function mapOffset(ours: readonly Edit[], edit: Edit): number | null {
  let shift = 0;
  for (const mine of ours) {
    const mineEnd = mine.at + mine.length;
    if (mineEnd < edit.at || (mineEnd === edit.at && mine.length > 0)) {
      shift += mine.text.length - mine.length;
      continue;
    }
    if (mine.at > edit.at + edit.length) break;
    if (mine.at === edit.at + edit.length && edit.length > 0 && mine.length > 0) break;
    return null;
  }
  return edit.at + shift;
}
