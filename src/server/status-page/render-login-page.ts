/**
 * The status page's login form: one password field for the admin token, posted to /ui/login. Served with
 * 401 to anyone without a valid bearer header or session cookie.
 */
import { renderPageLayout } from './render-page-layout.js';
import { html } from './safe-html.js';

/** Options of {@link renderLoginPage}. */
export interface RenderLoginPageOptions {
  /** CSP nonce of this response. */
  nonce: string;
  /** Where the form posts. */
  action: string;
  /** Shown above the form after a failed attempt. */
  error?: string;
}

/** The login page as an HTML document. */
export function renderLoginPage(options: RenderLoginPageOptions): string {
  const body = html`<main class="login">
<h1>hooksync status</h1>
<p>Sign in with the receiver's admin token (HOOKSYNC_ADMIN_TOKEN). Scripts and tools can send it as
<code>Authorization: Bearer &lt;token&gt;</code> instead.</p>
${options.error ? html`<p class="error" role="alert" id="login-error">${options.error}</p>` : ''}
<form method="post" action="${options.action}">
<label for="token">Admin token</label>
<input id="token" name="token" type="password" autocomplete="current-password" required autofocus${
    options.error ? html` aria-describedby="login-error" aria-invalid="true"` : ''
  }>
<button type="submit">Sign in</button>
</form>
</main>`;
  return renderPageLayout({ title: 'Sign in · hooksync status', nonce: options.nonce, body });
}
