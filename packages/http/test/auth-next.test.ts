import { describe, expect, it } from 'vitest';
import { safeNextPath } from '../src/auth/safe-next.js';

describe('safe next= after login (open-redirect table)', () => {
  it.each([
    ['/tree', '/tree'],
    ['/notebooks/a%20b.ipynb?x=1#frag', '/notebooks/a%20b.ipynb?x=1#frag'],
    ['/', '/'],
    [undefined, '/'],
    ['', '/'],
    ['//evil.com', '/'],
    ['///evil.com', '/'],
    ['/\\evil.com', '/'],
    ['\\\\evil.com', '/'],
    ['/\\/evil.com', '/'],
    ['https://evil.com', '/'],
    ['http:evil.com', '/'],
    ['javascript:alert(1)', '/'],
    ['evil.com', '/'],
    ['/%2F%2Fevil.com', '/'],
    ['/%2fevil.com', '/'],
    ['%2F%2Fevil.com', '/'],
    ['/%5Cevil.com', '/'],
    ['/%255Cevil.com', '/'],
    ['/%252F%252Fevil.com', '/'],
    ['/\tevil.com', '/'],
    ['/\t/evil.com', '/'],
    ['/%09/evil.com', '/'],
    ['/\n/evil.com', '/'],
    ['/%E0%A4%A', '/'],
  ])('next=%j -> %s', (next, expected) => {
    expect(safeNextPath(next, '/')).toBe(expected);
  });

  it('keeps the browser under the base URL', () => {
    expect(safeNextPath('/nb/tree', '/nb/')).toBe('/nb/tree');
    expect(safeNextPath('/nb', '/nb/')).toBe('/nb');
    expect(safeNextPath('/other/tree', '/nb/')).toBe('/nb/');
    expect(safeNextPath('/nbx/tree', '/nb/')).toBe('/nb/');
    expect(safeNextPath('//evil.com/nb/', '/nb/')).toBe('/nb/');
  });
});
