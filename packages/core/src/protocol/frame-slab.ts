/**
 * Uninitialized memory for outgoing WebSocket frames, carved from 64 KiB slabs. An iopub flood
 * makes one small frame per message; Buffer.allocUnsafe takes them from Node's 8 KiB pool, whose
 * refill (a new ArrayBuffer every ~16 frames) showed as 1.2–1.5 µs per message in CPU profiles of
 * the flood benchmark. A slab is dropped (never reused) once full, so a frame still queued on a
 * socket keeps its bytes; the cost is that it also keeps its slab alive until it is sent.
 */
const SLAB_BYTES = 64 * 1024;
/** Larger frames get their own allocation: they would waste most of a slab. */
const MAX_SLAB_FRAME = 4 * 1024;

let slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
let used = 0;

export function allocFrame(size: number): Buffer {
  if (size > MAX_SLAB_FRAME) return Buffer.allocUnsafe(size);
  if (used + size > SLAB_BYTES) {
    slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
    used = 0;
  }
  const frame = slab.subarray(used, used + size);
  // Keep the next frame 8-byte aligned, as Node's own pool does.
  used = (used + size + 7) & ~7;
  return frame;
}
