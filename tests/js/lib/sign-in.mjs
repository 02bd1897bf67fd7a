// A person signing in at a third party through gate's login, in headless Chromium (the
// user-account tests): gate's connect page (it must name them), Continue, the authorization
// server's own sign-in as `login` (oidc-provider's pages), its consent, and gate's page at the
// end. Returns { outcome (that page's text), callbacks (gate's redirect URLs seen),
// authorize (the authorization request's URL) }.
import assert from 'node:assert/strict';

export async function signIn(browser, url, login) {
  const page = await browser.newPage();
  const callbacks = [];
  let authorize;
  page.on('request', (r) => {
    if (r.url().includes('/oauth/callback')) callbacks.push(r.url());
    if (r.url().includes('/auth?')) authorize ??= r.url();
  });
  try {
    await page.goto(url);
    assert.match(await page.textContent('body'), new RegExp(`gate user ${login}\\b`));
    await Promise.all([page.waitForURL((u) => !u.pathname.startsWith('/oauth/connect')), page.click('#continue')]);
    await page.fill('input[name=login]', login);
    await page.fill('input[name=password]', 'any password');
    await page.click('button[type=submit]');
    await page.waitForSelector('button[type=submit]', { state: 'visible' });
    await page.click('button[type=submit]'); // consent: Continue
    await page.waitForSelector('#outcome');
    return { outcome: await page.textContent('#outcome'), callbacks, authorize };
  } finally {
    await page.close();
  }
}
