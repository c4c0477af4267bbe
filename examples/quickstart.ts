/**
 * `npm run example`: what Glance is for. A sandbox opens a small sign-up
 * page, and every element is found by a description, as a person would name
 * it, never by coordinates: the field by its label, the button by its text,
 * and the message that proves the sign-up worked. Each step prints the
 * engine that answered.
 */
import { Client, Element } from '../lib/sdk';

/** The page, as a data: URL, so that any sandbox can open it without a server. */
const SIGN_UP_PAGE = `data:text/html,${encodeURIComponent(`<!doctype html>
<title>Sign up</title>
<style>
  body { font: 18px sans-serif; margin: 60px; }
  label, input, button { display: block; margin: 8px 0; font: inherit; }
  input { width: 320px; padding: 8px; }
  button { padding: 8px 24px; }
</style>
<h1>Create your account</h1>
<label for="email">Email</label>
<input id="email" type="email" placeholder="you@example.com">
<button id="sign-up">Sign up</button>
<p id="result" role="status"></p>
<script>
  document.getElementById('sign-up').onclick = () => {
    document.getElementById('result').textContent = 'Welcome, ' + document.getElementById('email').value + '!';
  };
</script>`)}`;

const EMAIL = 'ada@example.com';

/** One line per step: what was looked for, where it was found, and which engine found it. */
function report(step: string, element: Element): void {
  if (!element.found()) {
    console.log(`  ✗ ${step}: not found\n${element.reason}`);
    return;
  }
  const selector = element.selector ? `, ${element.selector}` : '';
  console.log(`  ✓ ${step}: at ${element.centerX},${element.centerY} (engine: ${element.engine}${selector})`);
}

async function main(): Promise<void> {
  const client = new Client({ preview: 'none' });
  try {
    await client.auth();
    await client.connect({ keepAlive: 0 });
    await client.provision.chrome({ url: SIGN_UP_PAGE });

    report('the page heading', await client.find("the 'Create your account' heading"));

    const email = await client.find('the Email field');
    report('the field labelled Email', email);
    await email.click();
    await client.type(EMAIL);

    const signUp = await client.find("the 'Sign up' button");
    report('the Sign up button', signUp);
    await signUp.click();

    // The message appears a moment after the click: find() looks again until it shows or the timeout passes.
    const welcome = await client.find(`'Welcome, ${EMAIL}!'`, { timeout: 5000 });
    report('the welcome message', welcome);
    if (!welcome.found()) throw new Error('The sign-up did not show its welcome message.');
  } catch (error) {
    client.markFailed(String(error));
    throw error;
  } finally {
    await client.disconnect();
  }
}

main().catch((error) => {
  console.error(error.message);
  process.exitCode = 1;
});
