import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';

/** Notebook files the scenarios read, written once per run into a temp root shared by all servers. */

type Cell = Record<string, unknown>;

function notebook(cells: Cell[]): string {
  return JSON.stringify(
    {
      cells,
      metadata: {
        kernelspec: { display_name: 'Python 3 (ipykernel)', language: 'python', name: 'python3' },
        language_info: { name: 'python', version: '3.11' },
      },
      nbformat: 4,
      nbformat_minor: 5,
    },
    null,
    1,
  );
}

let cellCounter = 0;
function cellId(): string {
  return `c${(cellCounter++).toString(16).padStart(8, '0')}`;
}

function codeCell(source: string, outputs: Cell[], count: number): Cell {
  return { cell_type: 'code', id: cellId(), execution_count: count, metadata: {}, source, outputs };
}

function markdownCell(source: string): Cell {
  return { cell_type: 'markdown', id: cellId(), metadata: {}, source };
}

/** A real PNG of random pixels: incompressible, like a photo or a dense plot. */
export function noisePng(width: number, height: number): Buffer {
  const raw = Buffer.alloc((width * 3 + 1) * height);
  const pixels = randomBytes(width * 3 * height);
  for (let y = 0; y < height; y++) pixels.copy(raw, y * (width * 3 + 1) + 1, y * width * 3, (y + 1) * width * 3);
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(data: Buffer): number {
  let c = 0xffffffff;
  for (const byte of data) c = (CRC_TABLE[(c ^ byte) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function imageOutput(png: Buffer): Cell {
  return {
    output_type: 'display_data',
    data: { 'image/png': png.toString('base64'), 'text/plain': '<Figure size 640x480 with 1 Axes>' },
    metadata: {},
  };
}

function smallNotebook(i: number): string {
  return notebook([
    markdownCell(`# Notebook ${i}\nA small notebook.`),
    codeCell(`x = ${i}\nprint(x * 2)`, [{ output_type: 'stream', name: 'stdout', text: `${i * 2}\n` }], 1),
  ]);
}

/** A directory of `count` small notebooks; returns its path relative to the root. */
export function writeNotebookDir(root: string, name: string, count: number): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < count; i++)
    writeFileSync(join(dir, `notebook-${String(i).padStart(5, '0')}.ipynb`), smallNotebook(i));
  return name;
}

/** About `megabytes` MB of notebook, nearly all of it PNG outputs of plots. */
export function writeImageNotebook(root: string, name: string, megabytes: number): string {
  const png = noisePng(256, 256); // ~260 KB as base64
  const cells: Cell[] = [];
  const perCell = png.length * (4 / 3);
  for (let i = 0; i * perCell < megabytes * 1e6; i++) {
    cells.push(markdownCell(`## Figure ${i}`));
    cells.push(codeCell(`plot(data[${i}])`, [imageOutput(noisePng(256, 256))], i + 1));
  }
  writeFileSync(join(root, name), notebook(cells));
  return name;
}

/** A notebook page of `cellCount` cells and about `megabytes` MB: code, text outputs, plots, markdown, math. */
export function writePaintNotebook(root: string, name: string, cellCount: number, megabytes: number): string {
  const cells: Cell[] = [];
  const smallPng = noisePng(48, 48);
  const textBytes = Math.max(200, Math.floor((megabytes * 1e6) / cellCount) - 400);
  const line = 'loss=0.012345 acc=0.98765 step=000000 lr=1e-3 ';
  for (let i = 0; i < cellCount; i++) {
    if (i % 5 === 0) {
      cells.push(markdownCell(`## Section ${i}\nSome *markdown* with math $e^{i\\pi} + 1 = 0$ and a list:\n- a\n- b`));
    } else if (i % 10 === 3) {
      cells.push(codeCell(`show(${i})`, [imageOutput(smallPng)], i));
    } else {
      const text = `${line}\n`.repeat(Math.ceil(textBytes / (line.length + 1)));
      cells.push(
        codeCell(
          `for step in range(100):\n    print(f"loss={step}")  # cell ${i}`,
          [{ output_type: 'stream', name: 'stdout', text }],
          i,
        ),
      );
    }
  }
  writeFileSync(join(root, name), notebook(cells));
  return name;
}
