import { createInterface } from 'node:readline';
import { hashPassword, rotateSecret, storePasswordHash } from '@nbserve/http';

const MIN_LENGTH = 4;

/** Reads one line from the terminal without echoing it. */
function readHidden(prompt: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const stdin = process.stdin;
    // Echo off before the prompt shows: whatever is typed after seeing it must never appear.
    stdin.setRawMode(true);
    process.stderr.write(prompt);
    stdin.setEncoding('utf8');
    stdin.resume();
    let value = '';
    const cleanup = () => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') {
          cleanup();
          resolve(value);
          return;
        }
        if (ch === '\u0003' || ch === '\u0004') {
          cleanup();
          reject(new Error('cancelled'));
          return;
        }
        value = ch === '\u007f' || ch === '\b' ? value.slice(0, -1) : value + ch;
      }
    };
    stdin.on('data', onData);
  });
}

/** The password and its confirmation: typed hidden on a terminal, else the first two lines of stdin. */
async function promptTwice(): Promise<[string, string]> {
  if (process.stdin.isTTY) return [await readHidden('Enter password: '), await readHidden('Verify password: ')];
  const rl = createInterface({ input: process.stdin, terminal: false });
  const lines: string[] = [];
  for await (const line of rl) {
    lines.push(line);
    if (lines.length === 2) break;
  }
  rl.close();
  return [lines[0] ?? '', lines[1] ?? ''];
}

/** `nbserve password`: stores a scrypt hash in the config dir and logs every browser out. */
export async function runPassword(options: { configDir: string; dataDir: string }): Promise<number> {
  const [first, second] = await promptTwice();
  if (first !== second) {
    process.stderr.write('nbserve: the passwords do not match; nothing was changed\n');
    return 1;
  }
  if (first.length < MIN_LENGTH) {
    process.stderr.write(`nbserve: the password must have at least ${MIN_LENGTH} characters; nothing was changed\n`);
    return 1;
  }
  const file = await storePasswordHash(options.configDir, await hashPassword(first));
  // A new password must end old sessions; the signing key also mixes in the hash, this is belt and braces.
  await rotateSecret(options.dataDir);
  process.stdout.write(`Wrote the hashed password to ${file}\n`);
  return 0;
}
