import { FileSystemStore, type StoreNames } from '@nbserve/core';

/**
 * A real FileSystemStore that counts what a cache should spare it: directory reads, runs of
 * stats over a listing's entries, and file reads. A test tells a reused answer from a fresh one.
 */
export class CountingStore extends FileSystemStore {
  /** Directory reads (`listKinds`). */
  listings = 0;
  /** Runs of stats over a directory's entries (`statChildrenEach`). */
  statRuns = 0;
  /** File reads (`read`, `readInto`). */
  fileReads = 0;

  override listKinds(path: string): Promise<StoreNames> {
    this.listings++;
    return super.listKinds(path);
  }

  override statChildrenEach(...args: Parameters<FileSystemStore['statChildrenEach']>) {
    this.statRuns++;
    return super.statChildrenEach(...args);
  }

  override async read(path: string): Promise<Uint8Array> {
    this.fileReads++;
    return super.read(path);
  }

  override async readInto(path: string, take: (length: number) => Uint8Array): Promise<Uint8Array> {
    this.fileReads++;
    return super.readInto(path, take);
  }
}
