import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
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
   * `source` runs `src/main.ts` through tsx (development, tests); `dist` runs the built
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

export function kernelEntry(mode: 'source' | 'dist'): string {
  return fileURLToPath(new URL(mode === 'source' ? '../src/main.ts' : '../dist/main.js', import.meta.url));
}

export function defaultMode(): 'source' | 'dist' {
  return import.meta.url.endsWith('.ts') ? 'source' : 'dist';
}

/** The command line that runs the kernel, with `{connection_file}` left for the launcher. */
export function kernelArgv(language: Language, options: KernelSpecOptions = {}): string[] {
  const mode = options.mode ?? defaultMode();
  const node = options.nodePath ?? process.execPath;
  const tail = [kernelEntry(mode), '-f', '{connection_file}', '--language', language];
  if (mode === 'dist') return [node, ...tail];
  // Absolute loader URL: the kernel's cwd is the notebook's folder, where `tsx` does not resolve.
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  return [node, '--conditions=@nbserve/source', '--import', tsx, ...tail];
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
