import { SignInRequiredError, TokenRefusedError } from '../auth/token-source';

/** The development sign-in page; it sends the user back to the dashboard afterwards. */
const SIGN_IN_URL = '/auth/signin?returnUrl=%2F';

export interface SignInPanelOptions {
  /**
   * Signs in with a pasted access token; resolves once signed in (the caller then replaces the panel),
   * rejects with the reason (TokenRefusedError, SignInRequiredError, a network error).
   */
  onToken?: (token: string) => Promise<void>;
}

let panels = 0;

/**
 * What the dashboard shows instead of an empty list when it cannot sign in: why, and what to do next.
 * Without a session the user pastes an access token (form "Paste an access token"); a hub in
 * Development also links to its development sign-in page (`err.status` 401/403: it refused a session).
 */
export function createSignInPanel(err: unknown, options: SignInPanelOptions = {}): HTMLElement {
  const id = `signin-${++panels}`;
  const panel = document.createElement('section');
  panel.className = 'signin-required';
  panel.setAttribute('aria-labelledby', `${id}-title`);
  const h2 = document.createElement('h2');
  h2.id = `${id}-title`;
  const p = document.createElement('p');
  panel.append(h2, p);
  const action = (text: string, href: string) => {
    const a = document.createElement('a');
    a.className = 'signin-action';
    a.href = href;
    a.textContent = text;
    panel.append(a);
  };

  if (err instanceof SignInRequiredError) {
    h2.textContent = 'Sign-in required';
    if (err.devSignIn) {
      panel.classList.add('signin-problem');
      p.setAttribute('role', 'alert');
      p.textContent = `The hub refused your session (HTTP ${err.status}); it may have expired. Sign in again to see your devices.`;
      action('Development sign-in', SIGN_IN_URL);
    } else {
      const code = document.createElement('code');
      code.textContent = 'npm run token';
      p.append(
        'Sign in with an access token to see your devices: a user token from your identity provider, or one made with ',
        code,
        ' on the hub\u2019s host.',
      );
    }
    if (options.onToken) panel.append(createTokenForm(id, options.onToken, err.devSignIn));
  } else {
    panel.classList.add('signin-problem');
    panel.setAttribute('role', 'alert');
    h2.textContent = 'Could not sign in';
    p.textContent = `The hub did not answer the sign-in request (${err instanceof Error ? err.message : String(err)}). Check that it is running, then try again.`;
    action('Try again', location.pathname);
  }
  return panel;
}

/** Moves focus to the token field when it is the panel's only way in (not next to the development sign-in link). */
export function focusSignInPanel(panel: HTMLElement): void {
  panel.querySelector<HTMLInputElement>('.token-form:not(.token-form-alt) input')?.focus();
}

function createTokenForm(id: string, onToken: (token: string) => Promise<void>, alternative: boolean): HTMLFormElement {
  const form = document.createElement('form');
  form.className = 'token-form';
  form.noValidate = true; // errors are shown (and announced) below the field, not as browser bubbles
  if (alternative) form.classList.add('token-form-alt');

  const label = document.createElement('label');
  label.htmlFor = `${id}-token`;
  label.textContent = alternative ? 'Or paste an access token' : 'Paste an access token';

  const input = document.createElement('input');
  input.id = `${id}-token`;
  input.name = 'token';
  input.type = 'password'; // a bearer credential: no shoulder-surfing, no autofill of other passwords
  input.autocomplete = 'off';
  input.spellcheck = false;
  input.required = true;
  input.setAttribute('autocapitalize', 'off');
  input.setAttribute('aria-describedby', `${id}-hint ${id}-error`);

  const hint = document.createElement('p');
  hint.id = `${id}-hint`;
  hint.className = 'token-hint';
  hint.textContent = 'Sent once to this hub, which keeps you signed in with a session cookie.';

  const error = document.createElement('p');
  error.id = `${id}-error`;
  error.className = 'token-error';
  // Present (and empty) from the start, so screen readers announce the message when it appears.
  error.setAttribute('role', 'alert');

  const button = document.createElement('button');
  button.type = 'submit';
  button.className = 'signin-action';
  const idleText = alternative ? 'Sign in with token' : 'Sign in';
  button.textContent = idleText;

  const row = document.createElement('div');
  row.className = 'token-row';
  row.append(input, button);
  form.append(label, row, hint, error);

  const showError = (message: string) => {
    error.textContent = message;
    input.setAttribute('aria-invalid', 'true');
    input.focus();
    input.select();
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (form.getAttribute('aria-busy') === 'true') return;
    const token = input.value.trim();
    if (!token) {
      showError('Paste a token first.');
      return;
    }
    error.textContent = '';
    input.removeAttribute('aria-invalid');
    form.setAttribute('aria-busy', 'true');
    button.disabled = true;
    button.textContent = 'Signing in…';
    onToken(token).then(
      () => {
        input.value = '';
      },
      (err: unknown) => {
        form.removeAttribute('aria-busy');
        button.disabled = false;
        button.textContent = idleText;
        showError(refusalMessage(err));
      },
    );
  });
  return form;
}

function refusalMessage(err: unknown): string {
  if (err instanceof TokenRefusedError) {
    if (err.status === 401) {
      return 'The hub did not accept this token. It may have expired, or be meant for another hub (issuer, audience or key).';
    }
    if (err.status === 429) {
      return `Too many sign-in attempts from this address. Try again${err.retryAfterSeconds ? ` in ${err.retryAfterSeconds} s` : ' later'}.`;
    }
    return `Sign-in failed (HTTP ${err.status}).`;
  }
  if (err instanceof SignInRequiredError) {
    return 'The hub accepted the token, but the browser did not keep its session cookie. Allow cookies for this site, then try again.';
  }
  return 'Could not reach the hub. Check that it is running, then try again.';
}
