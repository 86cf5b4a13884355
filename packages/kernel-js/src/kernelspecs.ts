import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Language } from './engine/messages.js';

/** The kernel.json fields of a kernelspec (what Jupyter writes to disk). */
export interface KernelSpecFile {
  argv: string[];
  display_name: string;
  language: string;
  interrupt_mode: 'signal' | 'message';
  env: Record<string, string>;
  metadata: Record<string, unknown>;
}

/** A kernelspec nbserve offers without anything installed. */
export interface BuiltinKernelSpec {
  /** Kernel name, e.g. `javascript`. */
  name: string;
  spec: KernelSpecFile;
  /** Directory holding the logo files (the spec's `resource_dir`). */
  resourceDir: string;
  /** Resource name -> absolute file path, e.g. `logo-64x64` -> `.../logo-64x64.png`. */
  resources: Record<string, string>;
}

export interface KernelSpecOptions {
  /**
   * `source` runs `src/` through the dev launcher (development, tests); `dist` runs the built
   * `dist/main.js`. Default: whichever this module itself was loaded from.
   */
  mode?: 'source' | 'dist';
  /** Node binary for argv[0]. Default `process.execPath`. */
  nodePath?: string;
}

const packageRoot = fileURLToPath(new URL('..', import.meta.url));
const LANGUAGES: { name: Language; display: string }[] = [
  { name: 'javascript', display: 'JavaScript (Node.js)' },
  { name: 'typescript', display: 'TypeScript (Node.js)' },
];

/**
 * The script the kernelspec runs: the compiled `dist/main.js`, or in source mode the dev
 * launcher that bundles `src/` into a cache on first start (no TypeScript loader at run time).
 */
export function kernelEntry(mode: 'source' | 'dist'): string {
  if (mode === 'source') return fileURLToPath(new URL('../scripts/dev-kernel.mjs', import.meta.url));
  // `pnpm build` bundles the kernel (faster start); plain `tsc -b` output works as well.
  const bundled = fileURLToPath(new URL('../dist/kernel/main.cjs', import.meta.url));
  return existsSync(bundled) ? bundled : fileURLToPath(new URL('../dist/main.js', import.meta.url));
}

export function defaultMode(): 'source' | 'dist' {
  return import.meta.url.endsWith('.ts') ? 'source' : 'dist';
}

/** The command line that runs the kernel, with `{connection_file}` left for the launcher. */
export function kernelArgv(language: Language, options: KernelSpecOptions = {}): string[] {
  const mode = options.mode ?? defaultMode();
  const node = options.nodePath ?? process.execPath;
  return [node, kernelEntry(mode), '-f', '{connection_file}', '--language', language];
}

/** The `javascript` and `typescript` kernelspecs of the built-in kernel. */
export function builtinKernelSpecs(options: KernelSpecOptions = {}): BuiltinKernelSpec[] {
  return LANGUAGES.map(({ name, display }) => {
    const resourceDir = `${packageRoot}resources/${name}`;
    return {
      name,
      spec: {
        argv: kernelArgv(name, options),
        display_name: display,
        language: name,
        interrupt_mode: 'signal',
        env: {},
        metadata: { nbserve: { builtin: true } },
      },
      resourceDir,
      resources: {
        'logo-32x32': `${resourceDir}/logo-32x32.png`,
        'logo-64x64': `${resourceDir}/logo-64x64.png`,
        'logo-svg': `${resourceDir}/logo-svg.svg`,
      },
    };
  });
}
