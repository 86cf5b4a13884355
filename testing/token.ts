/** The token every test server runs with: 48 hex digits, the shape nbserve generates. */
export const TOKEN = 'c4f3b4b3c4f3b4b3c4f3b4b3c4f3b4b3c4f3b4b3c4f3b4b3';

/** The `Authorization` header that carries `TOKEN`, as Jupyter clients send it. */
export const AUTH = { Authorization: `token ${TOKEN}` } as const;
