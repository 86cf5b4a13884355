/**
 * A fixed-row-height virtual list: only the rows in (and near) the viewport exist in the DOM,
 * so a directory of 100,000 entries renders as fast as one of 50.
 */
export class VirtualList<T> {
  readonly element: HTMLElement;
  private readonly spacer: HTMLElement;
  private readonly rowsBox: HTMLElement;
  private items: readonly T[] = [];
  private frame = 0;
  /** The items and range last rendered: a scroll or resize that keeps both renders nothing. */
  private shown: { items: readonly T[]; first: number; last: number } | undefined;

  constructor(
    private readonly rowHeight: number,
    private readonly renderRow: (item: T, index: number) => HTMLElement,
  ) {
    this.element = document.createElement('div');
    this.element.className = 'vlist';
    this.spacer = document.createElement('div');
    this.spacer.className = 'vlist-spacer';
    this.rowsBox = document.createElement('div');
    this.rowsBox.className = 'vlist-rows';
    this.rowsBox.setAttribute('role', 'rowgroup');
    this.spacer.append(this.rowsBox);
    this.element.append(this.spacer);
    this.element.addEventListener('scroll', () => this.schedule(), { passive: true });
    new ResizeObserver(() => this.schedule()).observe(this.element);
  }

  setItems(items: readonly T[]): void {
    this.items = items;
    this.spacer.style.height = `${items.length * this.rowHeight}px`;
    this.render();
  }

  /** Re-renders visible rows (e.g. after the selection changed). */
  refresh(): void {
    this.render();
  }

  scrollToIndex(index: number): void {
    const top = index * this.rowHeight;
    const view = this.element.clientHeight;
    if (top < this.element.scrollTop) this.element.scrollTop = top;
    else if (top + this.rowHeight > this.element.scrollTop + view) this.element.scrollTop = top + this.rowHeight - view;
  }

  private schedule(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.render(false);
    });
  }

  /** `force`: render even if the same rows are shown (their items changed, e.g. selection). */
  private render(force = true): void {
    const height = this.element.clientHeight || 600;
    const overscan = 10;
    const first = Math.max(0, Math.floor(this.element.scrollTop / this.rowHeight) - overscan);
    const last = Math.min(this.items.length, Math.ceil((this.element.scrollTop + height) / this.rowHeight) + overscan);
    const shown = this.shown;
    // (the first resize observation, right after the first rows, would otherwise build them twice)
    if (!force && shown && shown.items === this.items && shown.first === first && shown.last === last) return;
    this.shown = { items: this.items, first, last };
    const rows: HTMLElement[] = [];
    for (let i = first; i < last; i++) {
      const row = this.renderRow(this.items[i] as T, i);
      row.style.transform = `translateY(${i * this.rowHeight}px)`;
      rows.push(row);
    }
    this.rowsBox.replaceChildren(...rows);
  }
}
