/** A named user action, shared by the menus, the toolbar and the keyboard shortcuts. */
export interface Command {
  id: string;
  label: string;
  /** Shown in menus and in the shortcut help (H). */
  keys?: string;
  run(): void | Promise<void>;
}

export class CommandRegistry {
  private readonly commands = new Map<string, Command>();

  add(...commands: Command[]): void {
    for (const c of commands) this.commands.set(c.id, c);
  }

  get(id: string): Command {
    const c = this.commands.get(id);
    if (!c) throw new Error(`unknown command ${id}`);
    return c;
  }

  run(id: string): void {
    void Promise.resolve(this.get(id).run()).catch((e: unknown) => {
      window.dispatchEvent(new CustomEvent('nbserve-error', { detail: e instanceof Error ? e.message : String(e) }));
    });
  }

  all(): Command[] {
    return [...this.commands.values()];
  }
}
