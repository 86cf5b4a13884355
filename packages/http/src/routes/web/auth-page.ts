import { createHash } from 'node:crypto';
import { escapeHtml } from '@nbserve/core';

const STYLE = `
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f5f6f8;color:#1f2328}
main{max-width:360px;margin:12vh auto;padding:28px 32px;background:#fff;border:1px solid #d8dce1;border-radius:8px;box-shadow:0 2px 8px rgba(0,0,0,.05)}
h1{font-size:20px;margin:0 0 18px}
label{display:block;font-weight:600;margin-bottom:6px}
input[type=password]{box-sizing:border-box;width:100%;padding:8px 10px;font:inherit;border:1px solid #bfc5cc;border-radius:5px}
input[type=password]:focus{outline:2px solid #3b82f6;outline-offset:-1px}
button{margin-top:14px;width:100%;padding:9px;font:inherit;font-weight:600;color:#fff;background:#2563eb;border:0;border-radius:5px;cursor:pointer}
button:hover{background:#1d4ed8}
.error{color:#b42318;background:#fef3f2;border:1px solid #fecdca;border-radius:5px;padding:8px 10px;margin-bottom:14px}
.hint{color:#57606a;font-size:13px;margin-top:16px}
a{color:#2563eb}
`;

/** The pages allow exactly this stylesheet and nothing else: no script at all, forms post to self only. */
export const AUTH_PAGE_CSP = `default-src 'self'; script-src 'none'; style-src 'sha256-${createHash('sha256')
  .update(STYLE)
  .digest('base64')}'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'self'`;

/** A small, self-contained page; `body` must already be escaped HTML. */
export function authPage(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${escapeHtml(title)} · nbserve</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}
