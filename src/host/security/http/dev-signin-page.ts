import { ID_HTML_PATTERN } from '../../ids.js';

/** The development sign-in page: pick a user, tenant and role; posts the form to `action`. */
export function signInPage(options: { action: string; returnUrl: string; sub: string; tenantId: string }): string {
  const { action, returnUrl, sub, tenantId } = options;
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Sign in (development)</title>
<style>body{font:16px system-ui;margin:3rem auto;max-width:22rem}label{display:block;margin:.8rem 0}input,select{width:100%;padding:.3rem}</style>
</head>
<body>
<h1>Sign in</h1>
<p>Development only: no password, pick who you are.</p>
<form method="post" action="${escapeHtml(action)}">
<label>User (sub) <input name="sub" value="${escapeHtml(sub)}" required maxlength="256"></label>
<label>Tenant <input name="tenant" value="${escapeHtml(tenantId)}" required pattern="${ID_HTML_PATTERN}"></label>
<label>Role <select name="role"><option value="">(none: read devices)</option><option value="admin">admin</option></select></label>
<input type="hidden" name="returnUrl" value="${escapeHtml(returnUrl)}">
<button type="submit">Sign in</button>
</form>
</body>
</html>
`;
}

/** The page a signed-in user lands on when a page refuses them. */
export function accessDeniedPage(signOutAction: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Access denied</title></head>
<body>
<h1>Access denied</h1>
<p>You are signed in, but not allowed to open that page.</p>
<form method="post" action="${escapeHtml(signOutAction)}"><button type="submit">Sign out</button></form>
</body>
</html>
`;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
