// Onboarding: two intro pages and the disliked-foods page, one at a time. "Skip" goes to the
// last page. Without this script the three pages simply stack.
const container = document.getElementById('onboarding');
const pages = [...document.querySelectorAll('.onboarding-page')];
const dots = [...document.querySelectorAll('.page-dots li')];

/** Shows one page; after a tap, focus moves to its heading so screen readers follow. */
function show(index, moveFocus = true) {
  pages.forEach((page, i) => { page.hidden = i !== index; });
  dots.forEach((dot, i) => dot.classList.toggle('current', i === index));
  const heading = pages[index]?.querySelector('h1');
  if (heading && moveFocus) {
    heading.tabIndex = -1;
    heading.focus({ preventScroll: true });
  }
}

if (container && pages.length) {
  container.classList.add('paged');
  pages.forEach((page, index) => {
    page.querySelector('.next-page')?.addEventListener('click', (event) => {
      event.preventDefault();
      show(index + 1);
    });
    page.querySelector('.skip-onboarding')?.addEventListener('click', (event) => {
      event.preventDefault();
      show(pages.length - 1);
    });
  });
  show(location.hash === '#dislikes' ? pages.length - 1 : 0, false);
}
