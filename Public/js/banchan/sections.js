// The shop's main page: tapping a section header shows how many dishes it has (as the app does).
import { say } from '../shared/dom.js';

const toast = document.getElementById('section-toast');

document.querySelectorAll('.section-header').forEach((header) => {
  header.addEventListener('click', () => {
    const count = document.getElementById(header.getAttribute('aria-controls'));
    const showing = header.getAttribute('aria-expanded') === 'true';
    header.setAttribute('aria-expanded', String(!showing));
    count.hidden = showing;
    // The toast fades out (its text stays until the next one), so the class goes, not the text.
    if (!showing) say(header.dataset.countText, { line: toast, clearAfter: 2500, shownClass: 'visible' });
  });
});
