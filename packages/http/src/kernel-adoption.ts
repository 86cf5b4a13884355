import {
  adoptedCell,
  adoptKernels,
  type CellExecutor,
  type KernelManager,
  type KernelPersistence,
  type KernelProvisioner,
  type KernelRecord,
  type KernelSpecSource,
  type MemorySessionStore,
} from '@nbserve/core';

/**
 * Cells of shared documents an earlier server was running on kernels adopted from it go on writing
 * their outputs into the documents here (collaboration/cell-executor.ts).
 */
export async function resumeCellRuns(
  kernels: KernelManager,
  collaboration: Promise<{ executor: CellExecutor }> | null,
): Promise<void> {
  const running = kernels
    .list()
    .map((model) => kernels.get(model.id))
    .filter((kernel) => adoptedCell(kernel)?.execution.cell);
  if (running.length === 0) return;
  const documents = await collaboration?.catch(() => null);
  for (const kernel of running) void documents?.executor.resume(kernel);
}

/** Adopts the persisted kernels, then restores their sessions and keeps both in the kernels' records. */
export async function adoptPersistedKernels(options: {
  persistence: KernelPersistence;
  store: MemorySessionStore;
  records: KernelRecord[];
  kernels: KernelManager;
  kernelspecs: KernelSpecSource;
  provisioner: KernelProvisioner;
  warn: (message: string) => void;
}): Promise<void> {
  const { persistence, store, kernels, warn } = options;
  persistence.sessionsOf = (kernelId) => store.forKernel(kernelId);
  const adopted = await adoptKernels(options.records, {
    manager: kernels,
    kernelspecs: options.kernelspecs,
    provisioner: options.provisioner,
    records: persistence.records,
    warn,
  });
  store.onChange = (kernelId) => {
    if (kernels.has(kernelId)) persistence.save(kernels.get(kernelId));
  };
  for (const record of adopted) for (const session of record.sessions) await store.put(session);
  if (adopted.length > 0) warn(`Adopted ${adopted.length} kernel(s) left running by a previous server`);
}
