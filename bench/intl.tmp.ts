import { launchChromium } from '../testing/chromium.js';
const browser = await launchChromium();
for (let i = 0; i < 3; i++) {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await page.setContent('<div>x</div>');
  console.log(await page.evaluate(() => {
    const t0 = performance.now();
    const c = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });
    const t1 = performance.now();
    const names = Array.from({ length: 500 }, (_, i) => `file-${String(i).padStart(6, '0')}.txt`).reverse();
    names.sort((a, b) => c.compare(a, b));
    const t2 = performance.now();
    const d = new Date(Date.now() - 3 * 86400e3).toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });
    const t3 = performance.now();
    return `collator ${(t1 - t0).toFixed(1)} sort500 ${(t2 - t1).toFixed(1)} date ${(t3 - t2).toFixed(1)} ${d}`;
  }));
  await ctx.close();
}
await browser.close();
