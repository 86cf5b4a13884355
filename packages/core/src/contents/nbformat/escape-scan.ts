/**
 * Finds out whether UTF-8 text needs JSON escaping, at memory speed. A 20 MB notebook is mostly
 * base64 image data; `JSON.stringify` of such a string checks it character by character (about
 * 25 ms for 20 MB on Node 20), while this 16-bytes-at-a-time WebAssembly SIMD loop takes about 1 ms.
 *
 * The module is assembled here from its instructions (no build step, no binary file). It exports
 * a 256 KiB scratch `memory` and `clean(start, end)`: 1 when no byte in [start, end) is below 0x20,
 * `"` or `\`, else 0. In UTF-8 those bytes only ever stand for themselves (every byte of a
 * multi-byte sequence is >= 0x80), so the answer is exact for any text the scratch holds.
 *
 *   (func (param $p i32) (param $end i32) (result i32) (local $v v128) (local $c i32)
 *     (block $tail (loop $vec
 *       (br_if $tail (i32.gt_u (i32.add (local.get $p) (i32.const 16)) (local.get $end)))
 *       (local.set $v (v128.load (local.get $p)))
 *       (if (v128.any_true (v128.or (v128.or (i8x16.lt_u (local.get $v) (i8x16.splat 0x20))
 *                                            (i8x16.eq (local.get $v) (i8x16.splat 0x22)))
 *                                   (i8x16.eq (local.get $v) (i8x16.splat 0x5c))))
 *         (then (return (i32.const 0))))
 *       (local.set $p (i32.add (local.get $p) (i32.const 16)))
 *       (br $vec)))
 *     (block $done (loop $byte
 *       (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
 *       (local.set $c (i32.load8_u (local.get $p)))
 *       (if (i32.or (i32.or (i32.lt_u (local.get $c) (i32.const 0x20)) (i32.eq (local.get $c) (i32.const 0x22)))
 *                   (i32.eq (local.get $c) (i32.const 0x5c)))
 *         (then (return (i32.const 0))))
 *       (local.set $p (i32.add (local.get $p) (i32.const 1)))
 *       (br $byte)))
 *     (i32.const 1))
 */

/** The little of the WebAssembly JS API used here (the ES lib this package compiles with has no types for it). */
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: Record<string, unknown> };
};

const I32 = 0x7f;
const V128 = 0x7b;
const SIMD = 0xfd;
const EMPTY = 0x40;
const [BLOCK, LOOP, IF, END, BR, BR_IF, RETURN] = [0x02, 0x03, 0x04, 0x0b, 0x0c, 0x0d, 0x0f];
const [LOCAL_GET, LOCAL_SET, LOCAL_TEE, I32_CONST] = [0x20, 0x21, 0x22, 0x41];
const [I32_LOAD8_U, I32_EQ, I32_LT_U, I32_GT_U, I32_GE_U, I32_ADD, I32_OR] = [0x2d, 0x46, 0x49, 0x4b, 0x4f, 0x6a, 0x72];
const [V128_LOAD, V128_CONST, I8X16_EQ, I8X16_LT_U, V128_OR, V128_ANY_TRUE] = [0x00, 0x0c, 0x23, 0x26, 0x50, 0x53];
const [P, END_, V, C] = [0, 1, 2, 3]; // locals
const SCRATCH_PAGES = 4;

const splat = (byte: number) => [SIMD, V128_CONST, ...new Array<number>(16).fill(byte)];
const code = [
  ...[BLOCK, EMPTY, LOOP, EMPTY],
  ...[LOCAL_GET, P, I32_CONST, 16, I32_ADD, LOCAL_GET, END_, I32_GT_U, BR_IF, 1],
  ...[LOCAL_GET, P, SIMD, V128_LOAD, 0, 0, LOCAL_SET, V],
  ...[LOCAL_GET, V, ...splat(0x20), SIMD, I8X16_LT_U],
  ...[LOCAL_GET, V, ...splat(0x22), SIMD, I8X16_EQ, SIMD, V128_OR],
  ...[LOCAL_GET, V, ...splat(0x5c), SIMD, I8X16_EQ, SIMD, V128_OR],
  ...[SIMD, V128_ANY_TRUE, IF, EMPTY, I32_CONST, 0, RETURN, END],
  ...[LOCAL_GET, P, I32_CONST, 16, I32_ADD, LOCAL_SET, P, BR, 0],
  ...[END, END],
  ...[BLOCK, EMPTY, LOOP, EMPTY],
  ...[LOCAL_GET, P, LOCAL_GET, END_, I32_GE_U, BR_IF, 1],
  ...[LOCAL_GET, P, I32_LOAD8_U, 0, 0, LOCAL_TEE, C, I32_CONST, 0x20, I32_LT_U],
  ...[LOCAL_GET, C, I32_CONST, 0x22, I32_EQ, I32_OR],
  ...[LOCAL_GET, C, I32_CONST, 0xdc, 0x00, I32_EQ, I32_OR], // 0x5c as a signed LEB128
  ...[IF, EMPTY, I32_CONST, 0, RETURN, END],
  ...[LOCAL_GET, P, I32_CONST, 1, I32_ADD, LOCAL_SET, P, BR, 0],
  ...[END, END],
  ...[I32_CONST, 1, END],
];

function leb128(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return out;
}
const name = (s: string) => [...leb128(s.length), ...Buffer.from(s, 'latin1')];
const section = (id: number, bytes: number[]) => [id, ...leb128(bytes.length), ...bytes];
const body = [2, 1, V128, 1, I32, ...code]; // locals $v: v128, $c: i32

const MODULE = new Uint8Array([
  ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
  ...section(1, [1, 0x60, 2, I32, I32, 1, I32]), // type 0: (i32, i32) -> i32
  ...section(3, [1, 0]), // function 0 has type 0
  ...section(5, [1, 0, SCRATCH_PAGES]), // memory 0: SCRATCH_PAGES pages, no maximum
  ...section(7, [2, ...name('clean'), 0, 0, ...name('memory'), 2, 0]),
  ...section(10, [1, ...leb128(body.length), ...body]),
]);

export interface EscapeScanner {
  /** Scratch space the text is written to before `clean` looks at it. */
  scratch: Buffer;
  /** 1 when bytes [start, end) of the scratch need no JSON escaping, else 0. */
  clean(start: number, end: number): number;
}

let scanner: EscapeScanner | null | undefined;

/** The scanner, or `null` where WebAssembly SIMD is unavailable (callers then escape everything). */
export function escapeScanner(): EscapeScanner | null {
  if (scanner !== undefined) return scanner;
  try {
    const instance = new WebAssembly.Instance(new WebAssembly.Module(MODULE));
    const exports = instance.exports as { clean: EscapeScanner['clean']; memory: { buffer: ArrayBuffer } };
    // the memory never grows, so this view stays valid
    scanner = { scratch: Buffer.from(exports.memory.buffer), clean: exports.clean };
  } catch {
    scanner = null;
  }
  return scanner;
}
