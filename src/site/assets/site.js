/* global document, navigator, Worker */
// Progressive enhancement only: every form works without this file, except that the human check
// (ALTCHA) needs JavaScript to solve its proof of work.
import '/site/assets/altcha.js';

// The external ALTCHA build bundles no workers: register the PBKDF2 one, served from this server.
if (globalThis.$altcha) {
  globalThis.$altcha.algorithms.set('PBKDF2/SHA-256', () => new Worker('/site/assets/altcha-pbkdf2-worker.js'));
}

// Copy buttons: <button data-copy="element-id">.
for (const button of document.querySelectorAll('button[data-copy]')) {
  button.hidden = false;
  button.addEventListener('click', async () => {
    const source = document.getElementById(button.dataset.copy);
    if (!source) return;
    const text = source.value ?? source.textContent;
    try {
      await navigator.clipboard.writeText(text);
      button.textContent = 'Copied';
    } catch {
      source.select?.();
      button.textContent = 'Select and copy';
    }
  });
}
