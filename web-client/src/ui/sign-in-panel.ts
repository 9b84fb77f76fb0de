import { SignInRequiredError } from '../auth/token-source';

/** The development sign-in page; it sends the user back to the dashboard afterwards. */
const SIGN_IN_URL = '/auth/signin?returnUrl=%2F';

/**
 * What the dashboard shows instead of an empty list when it cannot sign in: why, and what to do next.
 * 404 = the hub maps no dev sign-in (not Development); 401/403 = a session the hub refused (e.g. expired).
 */
export function createSignInPanel(err: unknown): HTMLElement {
  const panel = document.createElement('section');
  panel.className = 'signin-required';
  panel.setAttribute('role', 'alert');
  const h2 = document.createElement('h2');
  const p = document.createElement('p');
  panel.append(h2, p);
  const action = (text: string, href: string) => {
    const a = document.createElement('a');
    a.className = 'signin-action';
    a.href = href;
    a.textContent = text;
    panel.append(a);
  };
  if (err instanceof SignInRequiredError && (err.status === 401 || err.status === 403)) {
    h2.textContent = 'Sign-in required';
    p.textContent = `The hub refused your session (HTTP ${err.status}); it may have expired. Sign in again to see your devices.`;
    action('Sign in', SIGN_IN_URL);
  } else if (err instanceof SignInRequiredError) {
    h2.textContent = 'Sign-in required';
    p.textContent =
      `This hub offers no development sign-in (HTTP ${err.status} from /auth/dev-token): it is not running in Development, ` +
      'and the dashboard has no other way to sign in yet. Open the dashboard of a hub started in Development (npm start), ' +
      'or call the API with a bearer token.';
  } else {
    h2.textContent = 'Could not sign in';
    p.textContent = `The hub did not answer the sign-in request (${err instanceof Error ? err.message : String(err)}). Check that it is running, then try again.`;
    action('Try again', location.pathname);
  }
  return panel;
}
