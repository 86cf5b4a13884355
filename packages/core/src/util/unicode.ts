/**
 * Text that can become UTF-8 without loss: no lone surrogate (`"\ud800"` in JSON parses to one,
 * and encoding it writes U+FFFD, silently changing the data). Native on Node 20
 * (`String.prototype.isWellFormed`), typed here until the project's lib includes ES2024.
 */
export function isWellFormedText(text: string): boolean {
  return (text as string & { isWellFormed(): boolean }).isWellFormed();
}
