import { isNbserveError, notFound, unavailable } from '../errors.js';
import type { KernelSpecListing } from '../kernelspecs/manager.js';
import type { KernelSpecSource } from '../kernelspecs/source.js';
import type { KernelSpec, KernelSpecEntry } from '../kernelspecs/spec.js';
import { isObject } from '../util/is-object.js';
import type { GatewayClient } from './client.js';

export interface GatewayKernelSpecsOptions {
  /** When non-empty, only these names are listed or started. */
  allowed?: readonly string[];
  /** The default kernel name; default the gateway's. */
  defaultName?: string | undefined;
  /** `?user=` on listings, as upstream does with `$KERNEL_USERNAME` (Enterprise Gateway filters by it). */
  user?: string | undefined;
}

function strings(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (isObject(value)) for (const [k, v] of Object.entries(value)) if (typeof v === 'string') out[k] = v;
  return out;
}

/**
 * A gateway's spec as a KernelSpecEntry. Gateways report every field (Enterprise Gateway adds its
 * own `metadata`); anything missing gets kernel.json's default. Resources keep only the file name:
 * they are served under this server's `/kernelspecs/<name>/` and fetched from the gateway.
 */
function toEntry(name: string, model: unknown): KernelSpecEntry | undefined {
  if (!isObject(model) || !isObject(model.spec)) return undefined;
  const s = model.spec;
  const spec: KernelSpec = {
    argv: Array.isArray(s.argv) ? s.argv.filter((a): a is string => typeof a === 'string') : [],
    env: strings(s.env),
    display_name: typeof s.display_name === 'string' ? s.display_name : name,
    language: typeof s.language === 'string' ? s.language : '',
    interrupt_mode: s.interrupt_mode === 'message' ? 'message' : 'signal',
    metadata: isObject(s.metadata) ? s.metadata : {},
  };
  const resources: Record<string, string> = {};
  for (const [key, url] of Object.entries(strings(model.resources))) {
    // `<gateway base>kernelspecs/<name>/<file>`: the file is what follows the spec's folder.
    const file = url.split('/').pop();
    if (file) resources[key] = decodeURIComponent(file);
  }
  return { name, spec, resourceDir: null, resources };
}

/** Kernelspecs listed by a gateway (upstream's GatewayKernelSpecManager); nothing is cached. */
export class GatewayKernelSpecs implements KernelSpecSource {
  readonly #client: GatewayClient;
  readonly #allowed: string[];
  readonly #query: string;
  readonly #defaultName: string | undefined;

  constructor(client: GatewayClient, options: GatewayKernelSpecsOptions = {}) {
    this.#client = client;
    this.#allowed = (options.allowed ?? []).map((n) => n.toLowerCase());
    this.#defaultName = options.defaultName?.toLowerCase();
    this.#query = options.user ? `?user=${encodeURIComponent(options.user)}` : '';
  }

  #isAllowed(name: string): boolean {
    return this.#allowed.length === 0 || this.#allowed.includes(name.toLowerCase());
  }

  async list(): Promise<KernelSpecListing> {
    const body = await this.#client.json(`api/kernelspecs${this.#query}`);
    if (!isObject(body) || !isObject(body.kernelspecs)) {
      throw unavailable(`Gateway ${this.#client.name} sent a kernelspec listing without kernelspecs`);
    }
    const kernelspecs: Record<string, KernelSpecEntry> = {};
    for (const [name, model] of Object.entries(body.kernelspecs)) {
      const entry = this.#isAllowed(name) ? toEntry(name, model) : undefined;
      if (entry) kernelspecs[name] = entry;
    }
    const gatewayDefault = this.#defaultName ?? (typeof body.default === 'string' ? body.default : '');
    const fallback = Object.keys(kernelspecs).sort()[0] ?? gatewayDefault;
    return { default: kernelspecs[gatewayDefault] ? gatewayDefault : fallback, kernelspecs };
  }

  async get(name: string): Promise<KernelSpecEntry> {
    const missing = () => notFound(`Kernel spec ${name} not found`);
    if (!this.#isAllowed(name)) throw missing();
    let model: unknown;
    try {
      model = await this.#client.json(`api/kernelspecs/${encodeURIComponent(name)}`);
    } catch (error) {
      if (isNbserveError(error) && error.kind === 'not-found') throw missing();
      throw error;
    }
    const entry = toEntry(isObject(model) && typeof model.name === 'string' ? model.name : name, model);
    if (!entry) throw missing();
    return entry;
  }

  async defaultName(): Promise<string> {
    return (await this.list()).default;
  }

  async resource(name: string, file: string): Promise<Uint8Array> {
    const missing = () => notFound(`Kernel spec resource ${name}/${file} not found`);
    if (!this.#isAllowed(name) || file === '' || file === '.' || file === '..' || /[/\\\0]/.test(file)) throw missing();
    try {
      return (await this.#client.fetch(`kernelspecs/${encodeURIComponent(name)}/${encodeURIComponent(file)}`)).body;
    } catch (error) {
      if (isNbserveError(error) && error.kind === 'not-found') throw missing();
      throw error;
    }
  }
}
